#!/usr/bin/env bash
# Guard of the headline speed ratios (issue 41): runs each against its peer in this one script,
# in a few minutes, and compares them with the figures last recorded in bench/data/perf_guard.txt
# (ratios, so the machine's speed cancels); a drop of more than 15 % prints
#   WARNING: MEASURE dropped P % (recorded R, now C; ...)
# Run it before and after a change that touches a hot path (README.md). Not a ctest test: timing
# is not a test; its comparison logic (bench/perf_compare.sh) has one (perf_compare_test.sh).
# Measures, every one "how many times the peer", higher is better; each the median of RUNS runs,
# ours and the peer's interleaved so that drift on a shared machine hits both:
#   sim_vs_ns3, sim_vs_ns3_no_causes  bench/sim_vs_ns3.sh's method: examples/ns3/ns3-sndbuf-65536.toml
#       (30000 x 8192, SndBuf 65536) against the ns-3 peer (peers/ns3), ns-3's run_wall_s over the
#       `wall_s` of `ackstall sim --json`, by default (with the causes line) and --no-causes;
#   scan_{text,json}_{pcap,pcapng}    bench/scan_vs_tshark.sh's method: the 910,004-packet capture of
#       the seed's unpatched transfer (~90,000 stalls), tshark -Y 'tcp.analysis.ack_rtt > 0.02'
#       wall over `ackstall scan [--json]` wall (whole processes); the _cpu measures are the same
#       runs' CPU times (user + system), which a shared machine's wait for a core leaves out;
#   ttcp_vs_iperf3_8192, ttcp_vs_iperf3_131072  bench/ttcp_vs_iperf3.sh's method: loopback, equal
#       write size, SECS-second runs, ackstall ttcp's bits/s over iperf3's.
# A measure whose peer is not installed (ns-3, tshark, iperf3) is skipped with a line saying so.
# Usage: bench/perf_guard.sh [--record] [--runs N] [--secs S] [--baseline FILE] [path/to/ackstall]
#   --record    write the figures measured now as the new baseline (with date, commit and load)
#   --runs N    runs per measure (default 3; the median is kept)
#   --secs S    seconds per ttcp/iperf3 run (default 3)
#   PERF_GUARD_NOTE="..." with --record: a comment kept in the baseline (how it was recorded)
# Exit: 0, or 1 when a measure dropped more than 15 % (perf_compare.sh), 2 on bad usage.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=$src/build/release/tools/ackstall/ackstall
baseline=$src/bench/data/perf_guard.txt
record=0 runs=3 secs=3
usage() { echo "usage: bench/perf_guard.sh [--record] [--runs N] [--secs S] [--baseline FILE] [path/to/ackstall]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --record) record=1 ;;
    --runs) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "perf_guard: --runs needs a positive integer" >&2; exit 2; }; runs=$2; shift ;;
    --secs) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "perf_guard: --secs needs a positive integer" >&2; exit 2; }; secs=$2; shift ;;
    --baseline) [ $# -ge 2 ] || usage; baseline=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "perf_guard: unknown option $1" >&2; usage ;;
    *) ackstall=$1 ;;
  esac
  shift
done
[ -x "$ackstall" ] || { echo "perf_guard: no ackstall binary at $ackstall (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "perf_guard: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
[ "$record" = 1 ] || [ -r "$baseline" ] || { echo "perf_guard: no baseline at $baseline (run with --record first)" >&2; exit 2; }
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
current=$tmp/current
: > "$current"
figure() {  # MEASURE RATIO DETAIL: print and keep
  printf '%-24s %8.2fx   %s\n' "$1" "$2" "$3"
  echo "$1 $2" >> "$current"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
started=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "perf_guard: median of $runs runs each, load $load_before"

# --- the simulator against ns-3 (sim_vs_ns3.sh's transfer and clocks)
if [ -f /usr/include/ns3.37/ns3/core-module.h ] || [ -f /usr/include/ns3/core-module.h ]; then
  # The peer is built once into the build tree and rebuilt when its source changes.
  peer_dir=$(dirname "$ackstall")/../../perf_guard
  mkdir -p "$peer_dir"
  if [ ! -x "$peer_dir/tcpbulk" ] || [ "$src/peers/ns3/tcpbulk.cc" -nt "$peer_dir/tcpbulk" ]; then
    echo "building the ns-3 peer into $peer_dir ..."
    sh "$src/peers/ns3/build.sh" "$peer_dir" > /dev/null
  fi
  scenario=$src/examples/ns3/ns3-sndbuf-65536.toml
  for i in $(seq "$runs"); do
    "$peer_dir/tcpbulk" --sndBuf=65536 --rcvBuf=16384 > "$tmp/ns3.$i"
    "$ackstall" sim "$scenario" --json > "$tmp/sim.$i"
    "$ackstall" sim "$scenario" --json --no-causes > "$tmp/nc.$i"
  done
  ns3=$(for i in $(seq "$runs"); do sed -n 's/.*run_wall_s=\([0-9.]*\).*/\1/p' "$tmp/ns3.$i"; done | median)
  wall_of() { for i in $(seq "$runs"); do sed -n 's/^  "wall_s": \([0-9.e+-]*\),*$/\1/p' "$tmp/$1.$i"; done | median; }
  sim=$(wall_of sim) nc=$(wall_of nc)
  [ -n "$ns3" ] && [ -n "$sim" ] && [ -n "$nc" ] || { echo "perf_guard: could not read the walls of ns-3 or sim" >&2; exit 2; }
  figure sim_vs_ns3 "$(ratio "$ns3" "$sim")" "ns-3 $(printf %.3f "$ns3") s / sim $(printf %.4f "$sim") s"
  figure sim_vs_ns3_no_causes "$(ratio "$ns3" "$nc")" "ns-3 $(printf %.3f "$ns3") s / sim --no-causes $(printf %.4f "$nc") s"
else
  echo "sim_vs_ns3: skipped (ns-3 not installed: apt-get install ns3 libns3-dev)"
fi

# --- the scanner against tshark (scan_vs_tshark.sh's capture and filter)
if command -v tshark > /dev/null && command -v editcap > /dev/null; then
  "$ackstall" sim "$src/examples/seed/02-unpatched.toml" --no-causes --set app.transmitter.writes=91000 \
    --pcap "$tmp/1m.pcap" > /dev/null
  editcap -F pcapng "$tmp/1m.pcap" "$tmp/1m.pcapng"
  for fmt in pcap pcapng; do
    f=$tmp/1m.$fmt
    : > "$tmp/tshark" && : > "$tmp/text" && : > "$tmp/json"
    for i in $(seq "$runs"); do
      measure tshark -n -r "$f" -Y 'tcp.analysis.ack_rtt > 0.02' >> "$tmp/tshark"
      measure "$ackstall" scan "$f" >> "$tmp/text"
      measure "$ackstall" scan "$f" --json >> "$tmp/json"
    done
    t=$(awk '{ print $1 }' "$tmp/tshark" | median)
    tc=$(awk '{ print $3 }' "$tmp/tshark" | median)
    for output in text json; do
      s=$(awk '{ print $1 }' "$tmp/$output" | median)
      sc=$(awk '{ print $3 }' "$tmp/$output" | median)
      figure "scan_${output}_$fmt" "$(ratio "$t" "$s")" "tshark $(printf %.3f "$t") s / scan $([ $output = json ] && echo '--json ')$(printf %.4f "$s") s"
      figure "scan_${output}_${fmt}_cpu" "$(ratio "$tc" "$sc")" "CPU: tshark $(printf %.3f "$tc") s / scan $([ $output = json ] && echo '--json ')$(printf %.3f "$sc") s"
    done
  done
else
  echo "scan_vs_tshark: skipped (tshark/editcap not installed)"
fi

# --- ttcp against iperf3 on loopback (ttcp_vs_iperf3.sh's first table)
if command -v iperf3 > /dev/null && command -v jq > /dev/null; then
  port=$((20000 + RANDOM % 20000))
  for len in 8192 131072; do
    : > "$tmp/iperf3" && : > "$tmp/ttcp"
    for i in $(seq "$runs"); do
      port=$((port + 1))
      iperf3 -s -1 -p $port > /dev/null 2>&1 & pids+=($!)
      sleep 0.3
      iperf3 -c 127.0.0.1 -p $port -l "$len" -t "$secs" -J | jq '.end.sum_received.bits_per_second' >> "$tmp/iperf3"
      port=$((port + 1))
      "$ackstall" ttcp -r -s -p $port --bind 127.0.0.1 -l "$len" --accept-timeout-ms 10000 > /dev/null & pids+=($!)
      "$ackstall" ttcp -t -s -p $port -l "$len" --time "$secs" --json 127.0.0.1 |
        jq '.end.sum_sent.bits_per_second' >> "$tmp/ttcp"
    done
    wait
    i3=$(median < "$tmp/iperf3") tt=$(median < "$tmp/ttcp")
    figure "ttcp_vs_iperf3_$len" "$(ratio "$tt" "$i3")" \
      "ttcp $(awk -v b="$tt" 'BEGIN { printf "%.0f", b / 8e6 }') MB/s / iperf3 $(awk -v b="$i3" 'BEGIN { printf "%.0f", b / 8e6 }') MB/s"
  done
else
  echo "ttcp_vs_iperf3: skipped (iperf3/jq not installed)"
fi
echo "(measured in $(( $(date +%s) - started )) s, load now $(cut -d' ' -f1-3 /proc/loadavg))"
# The peers slow down more than ackstall when the cores are shared (at load 10 on 2 cores tshark
# took ~7x its quiet time, scan ~6x: docs/BENCHMARKS.md), so a ratio taken under load is not
# comparable with one taken quiet.
awk -v l="$load_before" -v n="$(nproc)" 'BEGIN { split(l, a, " "); if (a[1] > n / 2)
  printf "NOTE: load average %s on %d cores: the ratios move with the load; trust a WARNING (or --record) only on a quiet machine\n", a[1], n }'
echo

if [ "$record" = 1 ]; then
  {
    echo "# bench/perf_guard.sh's baseline: MEASURE RATIO (times the peer, higher is better)."
    echo "# Recorded $(date -u '+%Y-%m-%d %H:%M UTC') at commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown),"
    echo "# median of $runs runs, $(nproc) cores, load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)."
    [ -z "${PERF_GUARD_NOTE:-}" ] || echo "$PERF_GUARD_NOTE" | fold -s -w 98 | sed 's/^/# /; s/ *$//'
    cat "$current"
  } > "$baseline"
  echo "recorded as the new baseline: $baseline"
  exit 0
fi
"$src/bench/perf_compare.sh" "$baseline" "$current"
