#!/usr/bin/env python3
"""Writes the lab's measured reader into the files the lab examples include.

argv[1] = a file with bench/lab_vs_sim.sh's per-size lines "# reader latency, classic receiver,
-l L unpatched, ...: {JSON}" (its output, or a kept copy such as
bench/data/lab_vs_sim-2026-12-04-2332-reader.txt); argv[2] (optional) = the directory to write,
examples/lab/include by default. For each size below it writes reader-lL.toml:

- receiver.ack.ack_at_read = true: the pair's ACK leaves at the read (the lab's regime,
  docs/STACKS.md §4), so an on-time read's latency is the capture's pair-ACK delay;
- app.receiver.read_wakeup (include/ackstall/sim/delay.h): every wake-up a draw from the
  capture's pair-ACK delays (`read_us_percentiles`, p0..p100), plus a rare-event term: a read is
  late (it covers three or more segments) at the median of the runs' own late-read rates, by a
  draw from the late reads' delays after the first segment less the 20 us base every read has
  (`late_read_after_1st_us_percentiles`; fewer than 10 late reads: their median).

Why the median of the runs' rates and not the pooled rate: the lab's figure for a cell is the
median of its runs, and one run in five can have 5-10x the late reads of the others
(docs/VALIDATION.md §4); pooling lets that run set the rate, the median run does not.
bench/lab_vs_sim.sh gives each simulated seed one lab run's own rate (READER_RUNS=per-run) for
the same reason.
"""
import json
import os
import statistics
import sys

SIZES = (8192, 16384)
BASE_US = 20.0


def wrap(vals):
    items = [f"{x:.1f}us" for x in vals]
    return ",\n  ".join(", ".join(items[i:i + 12]) for i in range(0, len(items), 12))


def late_rate_ppm(v):
    """(ppm, how it was taken) for one size's capture."""
    runs = [c for c in v.get("per_connection", []) if c.get("ack_pairs")]
    if runs:
        rates = [1e6 * c["late_reads"] / c["ack_pairs"] for c in runs]
        listed = "/".join(str(round(r)) for r in rates)
        return round(statistics.median(rates)), f"the median of its {len(runs)} runs' rates ({listed} per million)"
    pairs = v["ack_pairs"]
    return (round(1e6 * v["late_reads"] / pairs) if pairs else 0), "pooled over its runs (no per-run counts)"


def text(v, L, source):
    on = "quantiles(\n  " + wrap(v["read_us_percentiles"]) + ")"
    ppm, how = late_rate_ppm(v)
    pct = v.get("late_read_after_1st_us_percentiles")
    if v["late_reads"] and (pct is None or v["late_reads"] < 10):
        pct = [v["late_read_after_1st_us_median"]] * 2
    rare = (f"\n+ {ppm}ppm * quantiles(\n  " + wrap([max(d - BASE_US, 0.0) for d in pct]) + ")") if ppm and pct else ""
    return (f"# The lab's reader at -l {L} (classic receiver, unpatched), measured: written by\n"
            f"# bench/lab_reader_examples.py from {source} (docs/VALIDATION.md §4).\n"
            f"# Every wake-up: the capture's pair-ACK delays (p0..p100). Late reads: {how},\n"
            f"# {v['late_reads']} of {v['ack_pairs']} pairs in all; delayed by the late reads' own delays after the\n"
            f"# first segment less the {BASE_US:g} us base (p0..p100).\n\n"
            f"[receiver]\n"
            f"# the pair's ACK at the read while anything is unread (the lab's regime, docs/STACKS.md §4)\n"
            f"ack.ack_at_read = true\n\n"
            f"[app.receiver]\n"
            f"read_wakeup = '''\n{on}{rare}'''\n")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: lab_reader_examples.py LAB_VS_SIM_OUTPUT [DIR]")
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    out_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(root, "examples", "lab", "include")
    # the input as a reader finds it: its path in the repository, else its name
    source = os.path.relpath(os.path.abspath(sys.argv[1]), root)
    if source.startswith(".."):
        source = os.path.basename(sys.argv[1])
    rows = {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("# reader latency, classic receiver, -l "):
                rows[int(line.split("-l ")[1].split()[0])] = json.loads(line[line.index("{"):])
    for L in SIZES:
        if L not in rows:
            sys.exit(f"lab_reader_examples: {sys.argv[1]} has no -l {L} reader line")
        path = os.path.join(out_dir, f"reader-l{L}.toml")
        with open(path, "w") as f:
            f.write(text(rows[L], L, source))
        print(f"{path}: read_wakeup from -l {L}, late reads {late_rate_ppm(rows[L])[0]} per million")


main()
