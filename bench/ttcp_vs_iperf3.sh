#!/usr/bin/env bash
# ackstall ttcp vs iperf3, side by side in one run:
#   1. loopback, equal write size (-l = iperf3 -l): ratio ackstall/iperf3 (target >= 0.95);
#   2. ChunkedSender (--chunk seed, SO_SNDBUF 65536) vs a plain send() per write (--chunk none);
#   3. the lab link (ackstall lab: veth shaped to 100BASE-T goodput, docs/STACKS.md §7, needs
#      root): fraction of the shaped line rate (11.77 MB/s with timestamps), target >= 0.99 for
#      chunked sends; iperf3 over the same link for reference. Each lab row is the median of
#      RUNS runs; `lab run` uses SCHED_FIFO transfer threads (--realtime on, its default), and
#      the chunked case is repeated with ordinary threads (--realtime off) to show what the
#      scheduler costs on a shared machine (docs/VALIDATION.md section 4).
# Usage: bench/ttcp_vs_iperf3.sh [path/to/ackstall] [seconds per run, default 3] [runs per row, default 3]
# Needs: iperf3, jq (scripts/deps.sh test). Every background server and the lab are removed on
# exit (trap), also on failure.
set -euo pipefail
ackstall=${1:-build/release/tools/ackstall/ackstall}
secs=${2:-3}
runs=${3:-3}
[ -x "$ackstall" ] || { echo "ttcp_vs_iperf3: no ackstall binary at $ackstall" >&2; exit 2; }
for t in iperf3 jq; do command -v $t >/dev/null || { echo "ttcp_vs_iperf3: needs $t" >&2; exit 2; }; done

pids=()
lab_made=0
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$lab_made" = 1 ]; then "$ackstall" lab down >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT INT TERM

port=$((20000 + RANDOM % 20000))
mbs() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 8 / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
mbs2() { awk -v b="$1" 'BEGIN { printf "%.3f", b / 8 / 1e6 }'; }  # lab rows: no rounding before the ratio

iperf3_loopback() {  # len -> bits/s
  port=$((port + 1))
  iperf3 -s -1 -p $port >/dev/null 2>&1 & pids+=($!)
  sleep 0.3
  iperf3 -c 127.0.0.1 -p $port -l "$1" -t "$secs" -J | jq '.end.sum_received.bits_per_second'
}
ttcp_loopback() {  # len extra-args... -> bits/s
  local len=$1; shift
  port=$((port + 1))
  "$ackstall" ttcp -r -s -p $port --bind 127.0.0.1 -l "$len" --accept-timeout-ms 10000 >/dev/null & pids+=($!)
  "$ackstall" ttcp -t -s -p $port -l "$len" --time "$secs" --json "$@" 127.0.0.1 |
    jq '.end.sum_sent.bits_per_second'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Loopback is CPU-bound on a shared machine, so one pair of runs can differ by 10-30 %: each row
# is the median of RUNS runs, the two sides interleaved (A B A B ...) so that drift hits both.
echo "== loopback, equal write size ($secs s each, median of $runs, interleaved; MB/s = 10^6 bytes/s)"
printf '%8s %12s %12s %8s\n' len iperf3 ackstall ratio
for len in 8192 131072; do
  is=() as=()
  for _ in $(seq "$runs"); do is+=("$(iperf3_loopback $len)"); as+=("$(ttcp_loopback $len)"); done
  i=$(printf '%s\n' "${is[@]}" | median); a=$(printf '%s\n' "${as[@]}" | median)
  printf '%8s %12s %12s %8s\n' $len "$(mbs "$i")" "$(mbs "$a")" "$(ratio "$a" "$i")"
done

echo "== loopback, ChunkedSender (--chunk seed, -b 65536) vs plain send per write (--chunk none, -b 65536), median of $runs"
printf '%8s %12s %12s %8s\n' len plain chunked ratio
for len in 131072 1048576; do
  ps_=() cs=()
  for _ in $(seq "$runs"); do
    ps_+=("$(ttcp_loopback $len -b 65536 --chunk none)"); cs+=("$(ttcp_loopback $len -b 65536 --chunk seed)")
  done
  p=$(printf '%s\n' "${ps_[@]}" | median); c=$(printf '%s\n' "${cs[@]}" | median)
  printf '%8s %12s %12s %8s\n' $len "$(mbs "$p")" "$(mbs "$c")" "$(ratio "$c" "$p")"
done

if [ "$(id -u)" != 0 ]; then
  echo "== lab link: skipped (needs root for network namespaces)"
  exit 0
fi
echo "== lab link: veth shaped to 100BASE-T goodput, timestamps on (line rate 11.77 MB/s), median of $runs, load:$(cut -d' ' -f1-3 /proc/loadavg)"
"$ackstall" lab up --ack-mode classic >/dev/null
lab_made=1
line=11.772
printf '%-64s %8s %8s\n' case MB/s of-line
lab_case() {  # label, lab run options, ttcp args...
  local label=$1 opts=$2; shift 2
  local bps
  # shellcheck disable=SC2086  # $opts: zero or more lab run options
  bps=$(for _ in $(seq "$runs"); do
    "$ackstall" lab run $opts -- --time "$secs" --json "$@" | jq '.transmitter.end.sum_sent.bits_per_second'
  done | median)
  printf '%-64s %8s %8s\n' "$label" "$(mbs2 "$bps")" "$(ratio "$(mbs2 "$bps")" $line)"
}
lab_case "ttcp -l 8192 --chunk seed --emulate-afd=8192" "" -l 8192 --chunk seed --emulate-afd=8192
lab_case "ttcp -l 8192 --chunk seed --emulate-afd=8192, --realtime off" "--realtime off" -l 8192 --chunk seed --emulate-afd=8192
lab_case "ttcp -l 15928 --chunk seed --emulate-afd=8192" "" -l 15928 --chunk seed --emulate-afd=8192
lab_case "ttcp -l 15928 --emulate-afd=8192 (unpatched)" "" -l 15928 --emulate-afd=8192
lab_case "ttcp -l 131072 (plain Linux send buffer)" "" -l 131072
bps=$(for _ in $(seq "$runs"); do
  timeout $((secs + 20)) ip netns exec ackstall-b iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
  sleep 0.3
  ip netns exec ackstall-a iperf3 -c 10.77.0.2 -p 5201 -t "$secs" -J | jq '.end.sum_received.bits_per_second'
  wait $! || true
done | median)
printf '%-64s %8s %8s\n' "iperf3 (default -l 128K, ordinary threads)" "$(mbs2 "$bps")" "$(ratio "$(mbs2 "$bps")" $line)"
