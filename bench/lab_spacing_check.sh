#!/usr/bin/env bash
# The lab's segment spacing next to the simulator's, given the lab's shaper lateness two ways.
#
#   bench/lab_spacing_check.sh LAB_DIR [LEN] [ACKSTALL]     # LAB_DIR: a kept bench/lab_vs_sim.sh run
#
# The classic receiver's -l LEN (default 8192) unpatched capture in LAB_DIR gives the shaper's
# lateness (bench/lab_link_jitter.py); the simulator's lab scenario then runs 5 s with it as
# independent draws from its percentiles (link.shaper_lateness = quantiles(...), LINK_JITTER=measured
# in lab_vs_sim.sh) and replayed in order (link.data_lateness = trace(...), the first writes of the
# capture that fit in one argument; LINK_JITTER=trace), each captured on the receiver's side. Prints,
# for the lab and both runs, the share of a write's segment spacings under 5, 15, 30 and 60 us
# (where a back-to-back pair can shift a Linux reader's ACK pairing, docs/VALIDATION.md §4).
# Needs tshark and python3; reads LAB_DIR, writes only to its own temporary directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
lab=${1:?usage: lab_spacing_check.sh LAB_DIR [LEN] [ACKSTALL]}
len=${2:-8192}
bin=${3:-$here/build/release/tools/ackstall/ackstall}
cap=$lab/cap/$len-unpatched.pcapng
[[ -r $cap ]] || { echo "lab_spacing_check: no capture $cap (a kept lab_vs_sim.sh run, KEEP=1)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ackstall-spacing-XXXXXX")
trap 'rm -rf "$work"' EXIT
fields() { tshark -r "$1" -Y tcp -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.len -e tcp.ack -e tcp.stream -e frame.len 2>/dev/null; }
fields "$cap" >"$work/lab.tsv"
python3 "$here/bench/lab_link_jitter.py" 10.77.0.1 "$len" --trace <"$work/lab.tsv" >"$work/jit.json"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
d = json.load(open(f"{work}/jit.json"))
if "delta_us_percentiles" not in d or not d.get("delta_us_trace"):
    sys.exit("lab_spacing_check: the capture has no writes of 3 or more segments to measure the shaper on")
open(f"{work}/quantiles", "w").write("quantiles(" + ",".join(f"{x:.1f}us" for x in d["delta_us_percentiles"]) + ")")
items, per, out, size = [f"{round(x)}us" for x in d["delta_us_trace"]], d["trace_segments_per_write"], [], 0
for w in range(len(items) // per):
    chunk = items[w * per:(w + 1) * per]
    if size + sum(len(i) + 1 for i in chunk) >= 120_000:  # one argument: at most 128 KiB
        break
    out += chunk
    size += sum(len(i) + 1 for i in chunk)
open(f"{work}/trace", "w").write("trace(" + ",".join(out) + ")")
PY
run() {  # NAME KEY FILE (the key's whole delay)
  "$bin" sim "$here/examples/lab/pingpong-l8192.toml" --set app.transmitter.write_len="$len" \
    --set app.receiver.read_wakeup=20us --set receiver.ack.ack_at_read=false --set "$2=$(cat "$3")" --set app.transmitter.duration=5s \
    --set app.transmitter.writes=100000000 --pcap "$work/$1.pcap" --pcap-at receiver >/dev/null
  fields "$work/$1.pcap" | python3 "$here/bench/lab_link_jitter.py" 10.0.0.1 "$len" >"$work/$1.json"
}
run quantiles link.shaper_lateness "$work/quantiles"
run trace link.data_lateness "$work/trace"
python3 - "$work" "$len" <<'PY'
import json, sys
work, L = sys.argv[1], sys.argv[2]
print(f"# -l {L}: share of a write's segment spacings under 5 / 15 / 30 / 60 us")
print("| capture | spacings | < 5 us | < 15 us | < 30 us | < 60 us |")
print("|---|---|---|---|---|---|")
for name, f in (("lab", "jit"), ("sim, lateness drawn from its percentiles", "quantiles"),
                ("sim, lateness replayed in order", "trace")):
    d = json.load(open(f"{work}/{f}.json"))
    p = d["spacing_under_us_percent"]
    print(f"| {name} | {d['spacings']} | " + " | ".join(f"{p[k]:.3f} %" for k in ("5", "15", "30", "60")) + " |")
PY
