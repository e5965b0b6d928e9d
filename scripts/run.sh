#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds, and reproduces the
# seed's table with the simulator (seed figure vs simulated, side by side), then shows the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build plot
cmake --preset release >/dev/null
cmake --build --preset release
bin=build/release/tools/ackstall/ackstall
mkdir -p out
echo
echo "=== The seed's table, simulated: ackstall sim examples/seed/*.toml"
"$bin" sim examples/seed/*.toml
echo
echo "=== Why: the unpatched transfer, first 20 writes (time-sequence graph and pcap in out/)"
"$bin" sim examples/seed/02-unpatched.toml --set app.transmitter.writes=20 \
  --pcap out/unpatched.pcap --plot out/unpatched.png
echo
echo "=== The fix: how the seed's policy splits an 8192-byte send (SO_SNDBUF 8192, MSS 1460)"
"$bin" plan --mss 1460 --sndbuf 8192 --len 8192
echo
echo "More: docs/VALIDATION.md (what matches and why), ackstall sim --list-profiles, ackstall --help"
