#!/usr/bin/env python3
"""Writes the lab's measured reader into the lab examples (examples/lab/*.toml).

argv[1] = a file with bench/lab_vs_sim.sh's per-size lines "# reader latency, classic receiver,
-l L unpatched, ...: {JSON}" (its output, or a kept copy such as
bench/data/lab_vs_sim-2026-12-04-2332-reader.txt). Each example named below gets
`app.receiver.read_wakeup` (include/ackstall/sim/delay.h) from its size's capture, as
lab_vs_sim.sh simulates a classic unpatched cell with its defaults (ACK_AT_READ=on,
READER_MODEL=quantiles, the size's runs pooled): every wake-up a draw from the capture's pair-ACK
delays (`read_us_percentiles`), and late_reads / ack_pairs of them (per million) later by a draw
from the late reads' delays after the first segment less the 20 us base every read has
(`late_read_after_1st_us_percentiles`; fewer than 10 late reads: their median). The block after
the marker comment is replaced; nothing else in the file changes.
"""
import json
import sys

EXAMPLES = {"examples/lab/pingpong-l8192.toml": 8192, "examples/lab/pingpong-l16384.toml": 16384,
            "examples/lab/pingpong-seed-chunked.toml": 8192}
MARK = "# The lab's reader, measured"
BASE_US = 20.0


def wrap(vals):
    items = [f"{x:.1f}us" for x in vals]
    return ",\n  ".join(", ".join(items[i:i + 12]) for i in range(0, len(items), 12))


def block(v, L, source):
    on = "quantiles(\n  " + wrap(v["read_us_percentiles"]) + ")"
    pairs, late = v["ack_pairs"], v["late_reads"]
    ppm = round(1e6 * late / pairs) if pairs else 0
    pct = v.get("late_read_after_1st_us_percentiles")
    if late and (pct is None or late < 10):
        pct = [v["late_read_after_1st_us_median"]] * 2
    rare = f"\n+ {ppm}ppm * quantiles(\n  " + wrap([max(d - BASE_US, 0.0) for d in pct]) + ")" if late else ""
    return (f"{MARK} ({source}, -l {L}, classic,\n"
            f"# unpatched; docs/VALIDATION.md §4): every wake-up as the capture's pair-ACK delays (p0..p100),\n"
            f"# and {late} of {pairs} reads late ({ppm} per million) by the capture's late reads' delays\n"
            f"# after the first segment less the {BASE_US:g} us base (p0..p100). Written by\n"
            f"# bench/lab_reader_examples.py from bench/lab_vs_sim.sh's output.\n"
            f"read_wakeup = '''\n{on}{rare}'''\n")


def main():
    rows = {}
    for line in open(sys.argv[1]):
        if line.startswith("# reader latency, classic receiver, -l "):
            rows[int(line.split("-l ")[1].split()[0])] = json.loads(line[line.index("{"):])
    source = sys.argv[1]
    for path, L in EXAMPLES.items():
        if L not in rows:
            sys.exit(f"lab_reader_examples: {sys.argv[1]} has no -l {L} reader line")
        text = open(path).read()
        head = text[:text.index(MARK)] if MARK in text else text.rstrip("\n") + "\n\n[app.receiver]\n"
        open(path, "w").write(head + block(rows[L], L, source))
        print(f"{path}: read_wakeup from -l {L}")


main()
