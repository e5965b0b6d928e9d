#!/usr/bin/env bash
# bench/lab_link_jitter.py against known truth: the simulator's lab scenario with a shaper trace
# (link.data_lateness = trace(...)) whose every second 7300-byte write has its 3rd segment 40 us late,
# captured on the receiver's side (`sim --pcap-at receiver`, as the lab's dumpcap) and analysed
# as a lab capture is. Checks: the trace comes back write by write (6 segments, 0 for the first
# two, the 3rd's 40 us in every second write) and the quantiles see the same 40 us.
# Skips (77) without tshark or python3. Usage: link_jitter_roundtrip.sh ACKSTALL SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"
ackstall=$1 src=$2
require tshark "Debian package tshark"
require python3
private_dir jitter
"$ackstall" sim "$src/examples/lab/pingpong-l8192.toml" --set app.transmitter.write_len=7300 \
  --set app.transmitter.writes=200 --set "link.data_lateness=trace(0us,0us,0us,0us,0us,0us,0us,0us,40us,0us,0us,0us)" \
  --pcap "$dir/sim.pcap" --pcap-at receiver >/dev/null
tshark -r "$dir/sim.pcap" -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.len -e tcp.ack -e tcp.stream \
  -e frame.len 2>/dev/null | python3 "$src/bench/lab_link_jitter.py" 10.0.0.1 7300 --trace >"$dir/jit.json"
python3 - "$dir/jit.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, per = d["delta_us_trace"], d["trace_segments_per_write"]
if per != 6 or len(t) % 6:
    sys.exit(f"FAIL: {per} segments per write, {len(t)} values")
writes = [t[i:i + 6] for i in range(0, len(t), 6)]
near = lambda w, want: all(abs(a - b) <= 0.5 for a, b in zip(w, want))  # line time rounds to 0.2 us
late = [w for w in writes if near(w, [0, 0, 40, 0, 0, 0])]
on_time = [w for w in writes if near(w, [0] * 6)]
# The first writes ride the handshake's quick ACKs and the initial window; the rest alternate.
if len(late) < 90 or len(on_time) < 90 or len(late) + len(on_time) < len(writes) - 4:
    sys.exit(f"FAIL: {len(late)} late and {len(on_time)} on-time writes of {len(writes)}: {writes[:6]}")
q = d["delta_us_percentiles"]
if not (q[50] <= 0.5 and 39.5 <= q[90] <= 40.5):
    sys.exit(f"FAIL: percentiles p50 {q[50]} p90 {q[90]}, expected 0 and 40")
print(f"PASS: {len(late)} writes 40 us late at the 3rd segment, {len(on_time)} on time, of {len(writes)}")
PY
