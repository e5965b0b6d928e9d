#!/usr/bin/env bash
# The lab capture corpus (docs/VALIDATION.md §6): real Linux transfers in the namespace lab,
# recorded with dumpcap (pcapng, 96-byte snaplen: Ethernet + IPv6 + a SYN's 40-byte TCP header) at both ends — the sender's veth (ackstall-va)
# and the receiver's (ackstall-vb) — over IPv4 and IPv6, with the truth beside each: the sender's
# own count of waits on its emulated 8 KiB per-send quota (`ttcp --json`: transmitter.end.afd.stalls).
# For each capture it prints scan's stalls, tshark's late ACKs (tcp.analysis.ack_rtt > 0.02), the
# sender's count, the capture's goodput, the goodput of the scenario scan emits from it
# (`scan --emit-scenario` -> `sim`), and the mechanism scan names.
#
# Usage (root; Debian: wireshark-common for dumpcap, tshark):
#   bench/lab_capture_corpus.sh [path/to/ackstall] [OUT_DIR] [WRITES]
# With OUT_DIR = tests/data/lab-captures it re-records the corpus the test ScanCorpus.* checks
# (then re-record the golden reports: ACKSTALL_UPDATE_GOLDEN=1 ctest -R ScanCorpus).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
out=${2:-$(mktemp -d)}
writes=${3:-20}
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 0; }
command -v dumpcap >/dev/null && command -v tshark >/dev/null || { echo "SKIP: dumpcap/tshark not installed"; exit 0; }
mkdir -p "$out"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$ackstall" lab down >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

field() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
wait_for_file() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }

echo "# lab capture corpus: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $writes writes each"
printf '%-34s %-3s %6s %7s %7s %9s %9s  %s\n' capture end scan tshark sender cap_MB/s emit_MB/s mechanism
echo "{" > "$out/manifest.json.tmp"
sep=
record() {  # ACK_MODE WRITE_LEN POLICY IP
  local mode=$1 len=$2 policy=$3 ip=$4
  local name="$mode-$len-$policy-$ip"
  local v6=(); [ "$ip" = v6 ] && v6=(--ipv6)
  local chunk=(); [ "$policy" != unpatched ] && chunk=(--chunk "$policy")
  "$ackstall" lab up --ack-mode "$mode" >/dev/null
  pids=()
  for end in a b; do
    rm -f "$out/$name.$end.pcapng"
    ip netns exec "ackstall-$end" dumpcap -q -i "ackstall-v$end" -s 96 -f 'tcp port 5001' \
      -w "$out/$name.$end.pcapng" 2>/dev/null &
    pids+=($!)
  done
  for end in a b; do wait_for_file "$out/$name.$end.pcapng"; done
  sleep 0.5
  "$ackstall" lab run "${v6[@]}" -- -l "$len" -n "$writes" --emulate-afd=8192 "${chunk[@]}" --json > "$tmp/ttcp.json"
  sleep 0.3
  for p in "${pids[@]}"; do kill -INT "$p"; wait "$p" 2>/dev/null || true; done
  pids=()
  "$ackstall" lab down >/dev/null
  local sender
  sender=$(field "$tmp/ttcp.json" 'j["transmitter"]["end"]["afd"]["stalls"]')
  local late=()
  for end in a b; do
    local f="$out/$name.$end.pcapng"
    "$ackstall" scan "$f" --json --emit-scenario "$tmp/e.toml" > "$tmp/scan.json"
    "$ackstall" sim "$tmp/e.toml" --json > "$tmp/sim.json"
    local stalls tshark cap emitted mech
    stalls=$(field "$tmp/scan.json" 'sum(d["stall_count"] for f in j["flows"] for d in f["directions"])')
    tshark=$(tshark -n -r "$f" -Y 'tcp.analysis.ack_rtt > 0.02' 2>/dev/null | wc -l)
    cap=$(field "$tmp/scan.json" 'max(d["goodput_bytes_per_s"] for f in j["flows"] for d in f["directions"]) / 1e6')
    emitted=$(field "$tmp/sim.json" 'j["goodput_mib_s"] * 1.048576')
    mech=$(field "$tmp/scan.json" '[d for f in j["flows"] for d in f["directions"]][0]["diagnosis"]["mechanism"][:90]')
    printf '%-34s %-3s %6s %7s %7s %9.2f %9.2f  %s\n' "$name" "$end" "$stalls" "$tshark" "$sender" "$cap" "$emitted" "$mech"
    late+=("$tshark")
  done
  printf '%s"%s": {"ack_mode": "%s", "write_len": %s, "policy": "%s", "ip": "%s", "writes": %s, "sender_stalls": %s, "tshark_late_acks": {"a": %s, "b": %s}}\n' \
    "$sep" "$name" "$mode" "$len" "$policy" "$ip" "$writes" "$sender" "${late[0]}" "${late[1]}" >> "$out/manifest.json.tmp"
  sep=,
}
# IPv4 (MSS 1448): the seed's 15928-byte write is 11 segments (odd: the last one waits for the
# delayed ACK), 10000 is 7 (odd), 8192 and 16384 are 6 and 12 (even: stalls only when the reader's
# timing breaks the pairs, VALIDATION §4). IPv6 (MSS 1428): 15928 is 12 segments (even), so the
# seed's row there is 15000 (11 segments).
record classic 8192 unpatched v4
record classic 10000 unpatched v4
record classic 15928 unpatched v4
record classic 15928 seed v4
record classic 16384 unpatched v4
record default 15928 unpatched v4
record classic 15000 unpatched v6
record classic 15000 seed v6
record classic 15928 unpatched v6
echo "}" >> "$out/manifest.json.tmp"
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], 'w'), indent=1, sort_keys=True)" \
  "$out/manifest.json.tmp" "$out/manifest.json"
rm -f "$out/manifest.json.tmp"
echo "# corpus in $out: $(du -ch "$out"/*.pcapng | tail -n 1 | cut -f1) of pcapng"
