#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds, and runs the
# ackstall demos.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake --preset release >/dev/null
cmake --build --preset release
bin=build/release/tools/ackstall/ackstall
echo "=== The seed's fix: how an 8192-byte send is split with SO_SNDBUF 8192"
for mss in 1460 1448; do
  echo "--- MSS $mss: ackstall plan --mss $mss --sndbuf 8192 --len 8192"
  "$bin" plan --mss "$mss" --sndbuf 8192 --len 8192
done
echo "--- KB823764's 64 KB send, SO_SNDBUF 65536: ackstall plan --mss 1460 --sndbuf 65536 --len 65536"
"$bin" plan --mss 1460 --sndbuf 65536 --len 65536
