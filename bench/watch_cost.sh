#!/usr/bin/env bash
# What `ackstall watch` costs the transfers it watches (issue 39): the goodput of a loopback
# ttcp transfer alone, beside `watch` (inet_diag sampling every 100 ms) and beside `watch --events`
# (root: the tracepoints, every ACK and send of the transfer through the ring buffer), each the
# median of RUNS runs, interleaved; and the event rate --events sustained with what it lost
# (overrun/dropped: the ring buffer's per-CPU counters). Prints each goodput and its ratio to the
# transfer alone.
# Usage: bench/watch_cost.sh [path/to/ackstall] [SECONDS] [RUNS]   (root for --events)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
secs=${2:-3}
runs=${3:-5}
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ackstall-watch-cost-XXXXXX")
rx=
trap '[ -n "$rx" ] && kill "$rx" 2>/dev/null; rm -rf "$dir"' EXIT
port=$((20000 + RANDOM % 20000))
"$ackstall" ttcp -r -s -p "$port" --forever --bind 127.0.0.1 > /dev/null 2>&1 &
rx=$!
sleep 0.3
modes=(alone watch)
[ "$(id -u)" = 0 ] && modes+=(events) || echo "# not root: watch --events not measured"

# One transfer beside MODE: its goodput (bytes/s) on stdout; --events' counts in $dir/MODE.N.watch.
transfer() {
  local mode=$1 n=$2 w=
  case $mode in
    watch) "$ackstall" watch --port "$port" --interval 100ms > "$dir/$mode.$n.watch" 2>&1 & w=$! ;;
    events) "$ackstall" watch --events --port "$port" --interval 100ms > "$dir/$mode.$n.watch" 2>&1 & w=$! ;;
  esac
  [ -n "$w" ] && sleep 0.3
  "$ackstall" ttcp -t -s -p "$port" --time "$secs" --json 127.0.0.1 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["sum_sent"]["bits_per_second"] / 8)'
  if [ -n "$w" ]; then kill -INT "$w"; wait "$w" || true; fi
}
for n in $(seq "$runs"); do
  for m in "${modes[@]}"; do transfer "$m" "$n" >> "$dir/$m.rates"; done
done
median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
base=$(median "$dir/alone.rates")
echo "# loopback ttcp, ${secs} s per transfer, median of $runs (kernel $(uname -r), $(nproc) CPUs)"
for m in "${modes[@]}"; do
  med=$(median "$dir/$m.rates")
  awk -v m="$m" -v r="$med" -v b="$base" 'BEGIN {printf "%-8s goodput %8.1f MB/s  ratio to alone %.3f  (cost %+.1f %%)\n", m, r/1e6, r/b, 100*(1-r/b)}'
done
if [ -f "$dir/events.1.watch" ]; then
  cat "$dir"/events.*.watch | grep '^events: ' | awk -v s="$secs" '
    {recs += $2; over += $11; drop += $13; n++}
    END {printf "events: %.0f records/s sustained (mean of %d runs over ~%.1f s each); lost %d overrun, %d dropped\n",
         recs / n / (s + 0.3), n, s + 0.3, over, drop}'
fi
