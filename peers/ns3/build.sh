#!/bin/sh
# Builds the ns-3 peer (tcpbulk.cc next to this script) into OUTDIR (default: a new temp dir)
# and prints the binary's path as its last line.
# Usage: peers/ns3/build.sh [OUTDIR]
# Needs Debian 12's ns-3 3.37 (apt-get install ns3 libns3-dev) and g++. Debian's ns-3
# pkg-config files are unusable (their Cflags hold "-I/usr\;" and their Libs name libgsl.so),
# so the include directory and libraries are given explicitly.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
if [ -f /usr/include/ns3.37/ns3/core-module.h ]; then
  inc=/usr/include/ns3.37
else
  inc=/usr/include
fi
[ -f "$inc/ns3/core-module.h" ] || {
  echo "build.sh: ns-3 headers not found (apt-get install ns3 libns3-dev)" >&2
  exit 1
}
${CXX:-g++} -O2 -std=c++17 -I"$inc" "$here/tcpbulk.cc" -o "$out/tcpbulk" \
  -lns3-applications -lns3-internet -lns3-point-to-point -lns3-traffic-control \
  -lns3-network -lns3-bridge -lns3-stats -lns3-core
echo "$out/tcpbulk"
