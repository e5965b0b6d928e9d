#!/usr/bin/env bash
# `ackstall scan` against tshark's equivalent analysis on one 1,000,000-packet capture, as
# classic pcap and as pcapng (editcap), text and --json output: wall time (median of N runs),
# peak memory, and the ratios tshark / scan — with the project's reader (the default) and with
# libpcap's (`scan --reader libpcap`), so the two readers are compared in the same run. Then peak memory at 1M vs 10M packets of one long
# flow (flat: scan keeps per-flow state, not per-packet state).
# The capture: the seed's unpatched transfer (examples/seed/02-unpatched.toml: every write ends in
# a 200 ms delayed ACK), simulated with `ackstall sim --pcap`, so it holds ~90,000 stalls.
# tshark's equivalent: the segments whose ACK came more than 20 ms after them
# (tshark -r F -Y 'tcp.analysis.ack_rtt > 0.02'), which needs its full TCP analysis.
# Two ratios a row: of the wall times (median of N) and of the CPU times (user + system, median of N;
# bench/bench_lib.sh's measure). On a quiet machine they agree; on a shared one the wall includes
# the wait for a core, and tshark's longer run waits more, so the CPU ratio is the one to read there.
# Usage: bench/scan_vs_tshark.sh [path/to/ackstall] [runs]   (Debian: tshark, wireshark-common)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
runs=${2:-3}
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
command -v tshark >/dev/null && command -v editcap >/dev/null || { echo "SKIP: tshark/editcap not installed"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scenario="$src/examples/seed/02-unpatched.toml"

# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"  # median, measure: "WALL_S PEAK_KB CPU_S"

"$ackstall" sim "$scenario" --set app.transmitter.writes=91000 --pcap "$tmp/1m.pcap" > /dev/null
editcap -F pcapng "$tmp/1m.pcap" "$tmp/1m.pcapng"
packets=$(tshark -r "$tmp/1m.pcap" -T fields -e frame.number 2>/dev/null | tail -n 1)
echo "capture: $packets packets; pcap $(stat -c %s "$tmp/1m.pcap") bytes, pcapng $(stat -c %s "$tmp/1m.pcapng") bytes"
printf '%-7s %-6s %-8s %10s %10s %10s %10s %12s %12s %8s %8s\n' format output reader scan_s tshark_s scan_cpu tshark_cpu \
  scan_peak_KB tshark_KB wall_x cpu_x
for fmt in pcap pcapng; do
  f="$tmp/1m.$fmt"
  tshark_runs=$(for i in $(seq "$runs"); do measure tshark -n -r "$f" -Y 'tcp.analysis.ack_rtt > 0.02'; done)
  tshark_s=$(echo "$tshark_runs" | awk '{ print $1 }' | median)
  tshark_kb=$(echo "$tshark_runs" | awk '{ print $2 }' | median)
  tshark_cpu=$(echo "$tshark_runs" | awk '{ print $3 }' | median)
  for output in text json; do
    for reader in own libpcap; do
      flag=(--reader "$reader"); [ "$output" = json ] && flag+=(--json)
      scan_runs=$(for i in $(seq "$runs"); do measure "$ackstall" scan "$f" "${flag[@]}"; done)
      scan_s=$(echo "$scan_runs" | awk '{ print $1 }' | median)
      scan_kb=$(echo "$scan_runs" | awk '{ print $2 }' | median)
      scan_cpu=$(echo "$scan_runs" | awk '{ print $3 }' | median)
      printf '%-7s %-6s %-8s %10.3f %10.3f %10.3f %10.3f %12s %12s %7.1fx %7.1fx\n' "$fmt" "$output" "$reader" \
        "$scan_s" "$tshark_s" "$scan_cpu" "$tshark_cpu" "$scan_kb" "$tshark_kb" \
        "$(echo "$tshark_s $scan_s" | awk '{ print $1 / ($2 > 0 ? $2 : 0.01) }')" \
        "$(echo "$tshark_cpu $scan_cpu" | awk '{ print $1 / ($2 > 0 ? $2 : 0.001) }')"
    done
  done
done
# The counts agree: stalls found by scan vs tshark's late ACKs.
ours=$("$ackstall" scan "$tmp/1m.pcap" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(sum(d["stall_count"] for f in j["flows"] for d in f["directions"]))')
theirs=$(tshark -n -r "$tmp/1m.pcap" -Y 'tcp.analysis.ack_rtt > 0.02' | wc -l)
echo "stalls: scan $ours, tshark $theirs"
# Memory flat in capture length: one flow of 1M vs 10M packets.
"$ackstall" sim "$scenario" --set app.transmitter.writes=910000 --set time_limit=400000s --pcap "$tmp/10m.pcap" > /dev/null
for n in 1m 10m; do
  echo "scan peak memory, $n packets: text $(measure "$ackstall" scan "$tmp/$n.pcap" | awk '{ print $2 }') KB," \
       "json $(measure "$ackstall" scan "$tmp/$n.pcap" --json | awk '{ print $2 }') KB"
done
