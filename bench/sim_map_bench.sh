#!/usr/bin/env bash
# Sweep speed and memory (`ackstall sim --sweep`): a 10,000-cell map of 300-write runs (SO_SNDBUF
# 1k..100k x write size 1k..100k, step 1k, over the seed's unpatched setup) on 1 and 2 cores, the
# peak memory at 1,000 vs 10,000 cells (flat: rows are streamed), and the peer a user had before
# sweeps existed: one `ackstall sim --set` process per cell in a shell loop (the first 300 cells).
# Usage: bench/sim_map_bench.sh [path/to/ackstall]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
scenario="$src/examples/seed/02-unpatched.toml"
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "SKIP: /usr/bin/time not installed (Debian package time)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

common=(--set app.transmitter.writes=300 --sweep sender.send_buffer.size=1k..100k:1k)
# run LABEL WRITE_AXIS JOBS: prints "cells wall_s peak_kib"
run() {
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$ackstall" sim "$scenario" "${common[@]}" --sweep "$2" -j "$3" \
    --csv "$tmp/$1.csv" > /dev/null
  echo "$(($(wc -l < "$tmp/$1.csv") - 1)) $(cat "$tmp/time")"
}
read -r c10k_1 wall_1 mem_10k_1 < <(run j1 app.transmitter.write_len=1k..100k:1k 1)
read -r c10k_2 wall_2 mem_10k_2 < <(run j2 app.transmitter.write_len=1k..100k:1k 2)
read -r c1k wall_1k mem_1k < <(run k1 app.transmitter.write_len=1k..10k:1k 1)
cmp -s "$tmp/j1.csv" "$tmp/j2.csv" || { echo "FAIL: -j1 and -j2 rows differ"; exit 1; }

# The peer: one process per cell, the same first 300 cells (write_len 1k..3k x all SO_SNDBUF).
start=$(date +%s%N)
for w in 1k 2k 3k; do
  for b in $(seq 1 100); do
    "$ackstall" sim "$scenario" --set app.transmitter.writes=300 --set "sender.send_buffer.size=${b}k" \
      --set "app.transmitter.write_len=$w" --json > /dev/null
  done
done
loop_wall=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')
read -r c300 wall_300 _ < <(run p1 app.transmitter.write_len=1k..3k:1k 1)

awk -v c="$c10k_1" -v w1="$wall_1" -v w2="$wall_2" -v m10="$mem_10k_1" -v m1="$mem_1k" -v c1="$c1k" \
    -v lw="$loop_wall" -v sw="$wall_300" -v cores="$(nproc)" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "map: %d cells of 300 writes (SO_SNDBUF x write size), %d cores, load avg %s\n", c, cores, load
  printf "  -j1: %7.2f s  %8.0f cells/s\n", w1, c / w1
  printf "  -j2: %7.2f s  %8.0f cells/s   (%.2fx -j1)\n", w2, c / w2, w1 / w2
  printf "peak memory: %d cells %d KiB, %d cells %d KiB (ratio %.2f)\n", c1, m1, c, m10, m10 / m1
  printf "peer: 300 cells as 300 `ackstall sim --set` processes %.2f s (%.0f cells/s); --sweep -j1 %.2f s: %.1fx\n",
         lw, 300 / lw, sw, lw / sw
}'
