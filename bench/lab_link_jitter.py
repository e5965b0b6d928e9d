#!/usr/bin/env python3
"""How late the lab's token-bucket shaper lets frames go, from a capture on the receiver's side.

Input: `tshark -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.len -e tcp.ack -e tcp.stream
-e frame.len` lines on stdin (relative sequence numbers; bench/lab_reader_latency.py reads the same
lines); argv[1] = the sender's address, argv[2]
= the write length, argv[3] = the shaper's rate in bit/s (default 100e6), argv[4] = its per-frame
overhead in bytes beyond frame.len (default 24: the lab's `stab overhead 24`).

The lab shapes with `tbf rate 100mbit burst 3100` (docs/STACKS.md §7). A write's segments all
reach the qdisc at once; short of tokens, tbf_dequeue arms its watchdog hrtimer for the moment
the tokens suffice, and the frame goes when the timer's softirq runs, late by some delta; the
tokens keep accruing meanwhile, so segment k of a write leaves at T0 + (line time of segments
1..k) + delta_k and the deltas do not add up. From a write's third segment on the credit banked
while idle is spent (burst 3100 bytes: two frames), so r_k = t_k - (line time of segments
3..k) = T0' + delta_k; delta_k - min over the write is taken as the sample (the write's least
delayed segment counts as on time, which understates delta by the smallest of a write's draws;
bench/lab_vs_sim.sh checks the round trip through the simulator). Writes with a gap above 20 ms
(a delayed-ACK stall inside the write) are skipped.

Also, for the writes it measures: the fraction with a segment more than 80 us late
(`writes_over_80us`), and the same for the writes with a late read — an ACK that covers three or
more segments, as bench/lab_reader_latency.py counts them (`late_read_writes`,
`late_read_writes_over_80us`): whether the reader is late when the shaper is (one host runs both).

Prints one JSON object: `samples`, `delta_us_p10_p50_p90`, `delta_us_percentiles` (p0 .. p99,
inclusive method, and a p100 that keeps the top percent's mean: the simulator's
link.shaper_lateness = quantiles(...)), with `--trace` (anywhere in the arguments) `delta_us_trace`
(every measured write's segments in capture order, connection by connection, 0 for the first
two, the writes of another segment count than the commonest left out and counted in
`trace_writes_left_out`; `trace_segments_per_write` is that count: the simulator's link.data_lateness = trace(...), which keeps how the lateness
runs together),
`delta_us_max`, and the
spacing of consecutive
segments of a write (`spacing_us_p10_p50_p90`) with the count under 30 us (`spacing_under_30us`)
and the percentage under 5, 15, 30 and 60 us (`spacing_under_us_percent`).
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_reader_latency import ack_coverage, is_late_read  # noqa: E402  (one definition of a late read)


def main() -> int:
    trace = "--trace" in sys.argv
    if trace:
        sys.argv.remove("--trace")
    sender = sys.argv[1]
    write_len = int(sys.argv[2])
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 100e6
    overhead = int(sys.argv[4]) if len(sys.argv) > 4 else 24
    streams, acks = {}, {}
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if len(f) < 7 or not f[0]:
            continue
        if f[1] != sender:
            if f[4]:
                acks.setdefault(f[5], []).append((float(f[0]), int(f[4])))
            continue
        ln = int(f[3] or 0)
        if ln > 0:
            streams.setdefault(f[5], []).append((float(f[0]), int(f[2]), ln, int(f[6])))
    deltas, spacing, trace_us = [], [], []
    writes = late_writes = 0           # writes measured; of them, with a segment > 80 us late
    read_writes = late_read_writes = 0  # the same for writes with a late read (below)
    for key, segs in streams.items():
        segs.sort()
        # Writes with a late read (bench/lab_reader_latency.py): an ACK, not the delayed-ACK timer,
        # that covers three or more segments which had all arrived before it.
        data = [(t, seq + ln, seq) for t, seq, ln, _ in segs]
        late_read = {(c[2] - 1) // write_len for ta, covered in ack_coverage(data, sorted(acks.get(key, [])))
                     if is_late_read(ta, covered) for c in covered}
        write = []
        for seg in segs + [None]:
            if write and (seg is None or (seg[1] - 1) // write_len != (write[0][1] - 1) // write_len):
                gaps = [b[0] - a[0] for a, b in zip(write, write[1:])]
                if len(write) >= 3 and max(gaps) < 20e-3:
                    spacing += [g * 1e6 for g in gaps]
                    line_time, r = 0.0, []
                    for t, _, _, frame_len in write[2:]:
                        line_time += (frame_len + overhead) * 8 / rate
                        r.append(t - line_time)
                    low = min(r)
                    mine = [(v - low) * 1e6 for v in r]
                    deltas += mine
                    trace_us.append([0.0, 0.0] + mine)  # the first two leave on banked credit
                    late = max(mine) > 80
                    writes += 1
                    late_writes += late
                    if (write[0][1] - 1) // write_len in late_read:
                        read_writes += 1
                        late_read_writes += late
                write = []
            if seg is not None:
                write.append(seg)
    out = {"samples": len(deltas), "writes": writes,
           "writes_over_80us": round(late_writes / writes, 4) if writes else 0,
           "late_read_writes": read_writes,
           "late_read_writes_over_80us": round(late_read_writes / read_writes, 4) if read_writes else 0}
    if len(deltas) >= 2:
        q = statistics.quantiles(deltas, n=100, method="inclusive")
        # The simulator draws uniformly between neighbouring percentiles. Between p99 and the
        # largest sample that would turn the capture's rare hiccups (a few ms, once in 10^4-10^5
        # frames: the VM descheduled) into one draw in 100; p100 is set instead so that the top
        # percent keeps its mean (p99 + p100 = 2 x the mean of the samples above p99).
        top = [v for v in deltas if v >= q[98]]
        p100 = max(q[98], 2 * statistics.mean(top) - q[98])
        pct = [min(deltas), *q, p100]
        out["delta_us_max"] = round(max(deltas), 1)
        out["delta_us_p10_p50_p90"] = [round(pct[10], 1), round(pct[50], 1), round(pct[90], 1)]
        out["delta_us_percentiles"] = [round(v, 1) for v in pct]
        if trace:  # the same samples in capture order, the writes of the usual segment count only
            usual = statistics.mode(len(w) for w in trace_us)
            out["delta_us_trace"] = [round(v, 1) for w in trace_us if len(w) == usual for v in w]
            out["trace_segments_per_write"] = usual
            out["trace_writes_left_out"] = sum(len(w) != usual for w in trace_us)
    if len(spacing) >= 2:
        q = statistics.quantiles(spacing, n=10)
        out["spacing_us_p10_p50_p90"] = [round(q[0], 1), round(statistics.median(spacing), 1), round(q[8], 1)]
        out["spacing_under_30us"] = sum(1 for g in spacing if g < 30)
        out["spacings"] = len(spacing)
        out["spacing_under_us_percent"] = {str(x): round(100 * sum(1 for g in spacing if g < x) / len(spacing), 3)
                                           for x in (5, 15, 30, 60)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
