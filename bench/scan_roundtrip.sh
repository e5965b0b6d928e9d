#!/usr/bin/env bash
# The capture validation corpus with known truth (docs/VALIDATION.md §5): every seed row and every
# receiver profile simulated with --pcap, then scanned. For each capture: the simulator's own
# delayed-ACK stall count, scan's stalls, tshark's late ACKs (tcp.analysis.ack_rtt > 0.02), and
# the round trip sim -> pcap -> scan --emit-scenario -> sim: the emitted scenario's goodput
# against the capture's.
# Usage: bench/scan_roundtrip.sh [path/to/ackstall] [writes]   (tshark optional)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
writes=${2:-2000}
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_tshark=$(command -v tshark >/dev/null && echo 1 || echo 0)

field() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

printf '%-44s %9s %6s %7s %10s %10s %7s\n' capture sim_stall scan tshark capture_MiB emitted_MiB ratio
run() {  # NAME SCENARIO [--set ...]
  local name=$1 scenario=$2; shift 2
  local sets=(--set app.transmitter.writes="$writes" "$@")
  "$ackstall" sim "$scenario" "${sets[@]}" --pcap "$tmp/c.pcap" --json > "$tmp/sim.json" 2>/dev/null || {
    # scp rows have no ttcp writes key: run them as they are
    "$ackstall" sim "$scenario" "$@" --pcap "$tmp/c.pcap" --json > "$tmp/sim.json"; }
  "$ackstall" scan "$tmp/c.pcap" --json --emit-scenario "$tmp/e.toml" > "$tmp/scan.json"
  "$ackstall" sim "$tmp/e.toml" --json > "$tmp/emitted.json"
  local sim_stalls scan_stalls cap_goodput emitted tshark
  sim_stalls=$(field "$tmp/sim.json" 'j["stalls"]["delayed-ack"]["count"]')
  scan_stalls=$(field "$tmp/scan.json" 'sum(d["stall_count"] for f in j["flows"] for d in f["directions"])')
  cap_goodput=$(field "$tmp/scan.json" 'max(d["goodput_bytes_per_s"] for f in j["flows"] for d in f["directions"]) / 1048576')
  emitted=$(field "$tmp/emitted.json" 'j["goodput_mib_s"]')
  tshark=-
  [ "$have_tshark" = 1 ] && tshark=$(tshark -n -r "$tmp/c.pcap" -Y 'tcp.analysis.ack_rtt > 0.02' 2>/dev/null | wc -l)
  printf '%-44s %9s %6s %7s %10.3f %10.3f %7.2f\n' "$name" "$sim_stalls" "$scan_stalls" "$tshark" "$cap_goodput" \
    "$emitted" "$(echo "$emitted $cap_goodput" | awk '{ print $1 / $2 }')"
}
for s in "$src"/examples/seed/*.toml; do run "seed $(basename "$s" .toml)" "$s"; done
for p in openbsd-3.9 freebsd-6 bsd-tick linux-2.6 linux linux-pingpong windows ns3; do
  run "02-unpatched, receiver $p" "$src/examples/seed/02-unpatched.toml" --set receiver.profile="$p"
done
