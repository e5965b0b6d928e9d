#!/usr/bin/env bash
# What `ackstall watch` costs the transfers it watches (issue 39). Two places:
#   lab       (root) a ttcp transfer across the lab (ackstall-a -> ackstall-b, shaped to 100BASE-T:
#             lab/netns.h) at its line rate, the watcher at the sender (ackstall-a);
#   loopback  a ttcp transfer on 127.0.0.1 as fast as the CPUs go: the worst case (every cycle the
#             watcher takes is the transfer's), and the event rate --events must keep up with.
# Each: the transfer alone, beside `watch` (inet_diag sampling every 100 ms) and beside `watch
# --events` (root: the tracepoints, every ACK and send of the transfer through the ring buffer),
# interleaved, the median goodput of RUNS runs with its ratio to the transfer alone, and the
# watcher's CPU time per second watched. For --events: the records it read per second and what
# the ring buffer lost (its per-CPU overrun and dropped counters, summed over the runs).
# Usage: bench/watch_cost.sh [path/to/ackstall] [SECONDS] [RUNS] [lab|loopback|both]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
secs=${2:-3}
runs=${3:-5}
where=${4:-both}
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ackstall-watch-cost-XXXXXX")
rx=
lab=
cleanup() {
  [ -n "$rx" ] && kill "$rx" 2>/dev/null
  [ -n "$lab" ] && "$ackstall" lab down > /dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
root=0
[ "$(id -u)" = 0 ] && root=1
hz=$(getconf CLK_TCK)

# One transfer beside MODE in PLACE: its goodput (bytes/s) on stdout; the watcher's output in
# $dir/PLACE.MODE.N.watch and its CPU seconds per second in $dir/PLACE.MODE.cpu.
transfer() {
  local place=$1 mode=$2 n=$3 w= ns=() to=127.0.0.1
  [ "$place" = lab ] && ns=(ip netns exec ackstall-a) && to=10.77.0.2
  case $mode in
    watch) "${ns[@]}" "$ackstall" watch --port "$port" --interval 100ms > "$dir/$place.$mode.$n.watch" 2>&1 & w=$! ;;
    events) "${ns[@]}" "$ackstall" watch --events --port "$port" --interval 100ms > "$dir/$place.$mode.$n.watch" 2>&1 & w=$! ;;
  esac
  [ -n "$w" ] && sleep 0.3
  local t0 c0
  t0=$(date +%s.%N)
  [ -n "$w" ] && c0=$(awk '{print $14 + $15}' "/proc/$w/stat")
  "${ns[@]}" "$ackstall" ttcp -t -s -p "$port" --time "$secs" --json "$to" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["sum_sent"]["bits_per_second"] / 8)'
  if [ -n "$w" ]; then
    awk -v c0="$c0" -v t0="$t0" -v t1="$(date +%s.%N)" -v hz="$hz" '{print ($14 + $15 - c0) / hz / (t1 - t0)}' \
      "/proc/$w/stat" >> "$dir/$place.$mode.cpu"
    kill -INT "$w"
    wait "$w" || true
  fi
}
median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# Runs every mode RUNS times interleaved in PLACE and prints the table.
measure() {
  local place=$1 modes=(alone watch)
  [ "$root" = 1 ] && modes+=(events) || echo "# not root: watch --events not measured"
  for n in $(seq "$runs"); do
    for m in "${modes[@]}"; do transfer "$place" "$m" "$n" >> "$dir/$place.$m.rates"; done
  done
  local base
  base=$(median "$dir/$place.alone.rates")
  echo "# $place: ttcp, ${secs} s per transfer, median of $runs, interleaved (kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
  for m in "${modes[@]}"; do
    local cpu=-
    [ -f "$dir/$place.$m.cpu" ] && cpu=$(median "$dir/$place.$m.cpu")
    awk -v p="$place" -v m="$m" -v r="$(median "$dir/$place.$m.rates")" -v b="$base" -v c="$cpu" 'BEGIN {
      printf "%-8s %-6s goodput %8.2f MB/s  ratio to alone %.3f  (cost %+.1f %%)", p, m, r/1e6, r/b, 100*(1-r/b)
      if (c != "-") printf "  watcher CPU %.1f %%", 100*c
      printf "\n"}'
  done
  if [ -f "$dir/$place.events.1.watch" ]; then
    # "events: R records read, A ACKs and S sends of watched sockets; lost: O overrun, D dropped, ..."
    cat "$dir/$place".events.*.watch | grep '^events: ' | awk -v s="$secs" -v p="$place" '
      {recs += $2; acks += $5; over += $14; drop += $16; n++}
      END {printf "%-8s events: %.0f records/s, %.0f ACKs/s sustained (mean of %d runs over ~%.1f s each); lost %d overrun, %d dropped\n",
           p, recs / n / (s + 0.3), acks / n / (s + 0.3), n, s + 0.3, over, drop}'
  fi
}

port=$((20000 + RANDOM % 20000))
if [ "$where" != loopback ]; then
  if [ "$root" = 0 ]; then
    echo "# not root: the lab (network namespaces) not measured"
  else
    # Another checkout's lab is waited for (up to 5 minutes), never replaced.
    for _ in $(seq 3000); do ip netns list | grep -q '^ackstall-' || break; sleep 0.1; done
    lab=1
    "$ackstall" lab up > "$dir/lab-up.txt" 2>&1 || { echo "lab up failed: $(cat "$dir/lab-up.txt")"; exit 1; }
    ip netns exec ackstall-b "$ackstall" ttcp -r -s -p "$port" --forever > /dev/null 2>&1 &
    rx=$!
    sleep 0.3
    measure lab
    kill "$rx" 2>/dev/null; wait "$rx" 2>/dev/null || true
    rx=
    "$ackstall" lab down > /dev/null
    lab=
  fi
fi
if [ "$where" != lab ]; then
  "$ackstall" ttcp -r -s -p "$port" --forever --bind 127.0.0.1 > /dev/null 2>&1 &
  rx=$!
  sleep 0.3
  measure loopback
fi
