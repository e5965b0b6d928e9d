#!/usr/bin/env bash
# Validation: under ns-3's assumptions the simulator reproduces the ns-3 peer's goodput within 2 %.
# Builds peers/ns3, runs it and `ackstall sim` on the same transfers, compares.
# Skips (exit 77) with a visible message when ns-3 or the peer is not installed.
set -euo pipefail
ackstall=$1 src=$2
peer="$src/peers/ns3"
[ -f "$peer/build.sh" ] || { echo "SKIP: ns-3 peer not found at $peer"; exit 77; }
[ -f /usr/include/ns3.37/ns3/core-module.h ] || [ -d /usr/include/ns3 ] ||
  { echo "SKIP: ns-3 not installed (apt-get install ns3 libns3-dev)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$(sh "$peer/build.sh" "$tmp" | tail -n 1)
fail=0
for sb in 8192 65536; do
  ns3=$("$bin" --sndBuf=$sb --rcvBuf=16384 | sed -n 's/^goodput_MiBps(t=0..last_rx)=\([0-9.]*\).*/\1/p')
  ours=$("$ackstall" sim "$src/examples/ns3/ns3-sndbuf-$sb.toml" --json |
         sed -n 's/^  "goodput_mib_s": \([0-9.e+-]*\),*$/\1/p')
  verdict=$(awk -v a="$ours" -v b="$ns3" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d;
            printf "%s %.4f", (d <= 0.02 ? "ok" : "FAIL"), d * 100 }')
  echo "SndBuf $sb: ns-3 $ns3 MiB/s, ackstall $ours MiB/s, difference ${verdict#* } % -> ${verdict%% *}"
  [ "${verdict%% *}" = ok ] || fail=1
done
exit $fail
