#!/usr/bin/env bash
# Simulator speed against the ns-3 peer, same transfer (30000 x 8192, SndBuf 65536, ns-3's
# assumptions: examples/ns3/ns3-sndbuf-65536.toml), medians of N runs, and peak memory at
# 30000 vs 300000 writes (flat memory: no per-write state). `ackstall sim` is timed as a user runs
# it (its causes line from the simulator's own stalls, sim/cause_accounts.h) and with
# `--no-causes` (the simulation alone, as ns-3 runs no analysis); their ratio is the causes' cost.
# Usage: bench/sim_vs_ns3.sh [path/to/ackstall] [runs]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
runs=${2:-5}
peer="$src/peers/ns3"
scenario="$src/examples/ns3/ns3-sndbuf-65536.toml"
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
[ -f "$peer/build.sh" ] || { echo "SKIP: ns-3 peer not found at $peer"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$(sh "$peer/build.sh" "$tmp" | tail -n 1)

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for i in $(seq "$runs"); do
  "$bin" --sndBuf=65536 --rcvBuf=16384 > "$tmp/ns3.$i"
  "$ackstall" sim "$scenario" --json > "$tmp/ours.$i"
  "$ackstall" sim "$scenario" --json --no-causes > "$tmp/nc.$i"
done
ns3_wall=$(for i in $(seq "$runs"); do sed -n 's/.*run_wall_s=\([0-9.]*\).*/\1/p' "$tmp/ns3.$i"; done | median)
ns3_events=$(sed -n 's/^events=\([0-9]*\).*/\1/p' "$tmp/ns3.1")
ns3_goodput=$(sed -n 's/^goodput_MiBps(t=0..last_rx)=\([0-9.]*\).*/\1/p' "$tmp/ns3.1")
wall_of() { for i in $(seq "$runs"); do sed -n 's/^  "wall_s": \([0-9.e+-]*\),*$/\1/p' "$tmp/$1.$i"; done | median; }
our_wall=$(wall_of ours)
nc_wall=$(wall_of nc)
our_events=$(sed -n 's/^  "events": \([0-9]*\),*$/\1/p' "$tmp/ours.1")
our_goodput=$(sed -n 's/^  "goodput_mib_s": \([0-9.e+-]*\),*$/\1/p' "$tmp/ours.1")

printf '%-10s %12s %12s %14s %12s\n' "" "wall s" "events" "events/s" "MiB/s"
awk -v w="$ns3_wall" -v e="$ns3_events" -v g="$ns3_goodput" 'BEGIN { printf "%-10s %12.3f %12d %14.0f %12.4f\n", "ns-3", w, e, e / w, g }'
awk -v w="$our_wall" -v e="$our_events" -v g="$our_goodput" 'BEGIN { printf "%-10s %12.4f %12d %14.0f %12.4f\n", "ackstall", w, e, e / w, g }'
awk -v w="$nc_wall" -v e="$our_events" -v g="$our_goodput" 'BEGIN { printf "%-10s %12.4f %12d %14.0f %12.4f\n", "no-causes", w, e, e / w, g }'
awk -v a="$ns3_wall" -v b="$our_wall" 'BEGIN { printf "speed ratio (ns-3 wall / ackstall wall): %.1fx (target >= 40x)\n", a / b }'
awk -v a="$ns3_wall" -v b="$nc_wall" 'BEGIN { printf "speed ratio (ns-3 wall / ackstall --no-causes wall): %.1fx\n", a / b }'
awk -v a="$our_wall" -v b="$nc_wall" 'BEGIN { printf "the causes line costs: default / --no-causes = %.3f (target <= 1.10)\n", a / b }'
echo "medians of $runs runs; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -x /usr/bin/time ]; then
  for n in 30000 300000; do
    rss=$( { /usr/bin/time -f '%M' "$ackstall" sim "$scenario" --set app.transmitter.writes=$n >/dev/null; } 2>&1 | tail -n 1)
    echo "peak RSS at $n writes: $rss KiB"
  done
fi
