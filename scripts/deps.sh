#!/usr/bin/env bash
# Installs the Debian 12 packages ackstall needs that are missing (apt-get, as root).
# Usage: scripts/deps.sh GROUP...   (default: build)
#   build  compile the libraries, the tool, tests and benchmarks
#   plot   draw time-sequence graphs (ackstall sim --plot): gnuplot
#   test   everything the test suite and the benchmarks use: build + plot + tshark, iperf3, ns-3,
#          clang (fuzzers), MinGW-w64 + Wine (the Windows build), iproute2 (the lab)
set -euo pipefail
build_pkgs=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev
            libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libexpected-dev
            libpcap0.8-dev zlib1g-dev liblzma-dev)
plot_pkgs=(gnuplot-nox)
test_pkgs=(tshark python3 iproute2 iperf3 jq clang libclang-rt-14-dev ns3 libns3-dev time
           g++-mingw-w64-x86-64-posix wine wine64 googletest parallel chromium)  # googletest: sources, for MinGW; chromium: scan --report in a browser
pkgs=()
for group in "${@:-build}"; do
  case $group in
    build) pkgs+=("${build_pkgs[@]}") ;;
    plot) pkgs+=("${plot_pkgs[@]}") ;;
    test) pkgs+=("${build_pkgs[@]}" "${plot_pkgs[@]}" "${test_pkgs[@]}") ;;
    *) echo "deps.sh: unknown group '$group' (build, plot or test)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "deps.sh: missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
