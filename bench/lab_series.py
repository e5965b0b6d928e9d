#!/usr/bin/env python3
"""Several kept lab runs against the simulator, pooled (issue 13, docs/VALIDATION.md §4).

    for d in /tmp/lab_vs_sim.*; do TABLE_JSON=$d.table.json LAB_DIR=$d bench/lab_vs_sim.sh ...; done
    bench/lab_series.py /tmp/lab_vs_sim.*.table.json

Each argument is a table written by `bench/lab_vs_sim.sh` with TABLE_JSON=FILE: every lab run's
goodput and stall rate and every simulated seed's, per cell (receiver, write length, case). One
lab series is RUNS runs of SECONDS s (5 x 5 s in docs/VALIDATION.md §4); its median of five
stall rates moves between series far more than the 1.5x the comparison allows (classic 8192
unpatched: 1.0-3.0 stalls/s over twelve series of one day). Pooling the series gives the lab's
median over all their runs, which the simulator, given each series' own reader measurement,
predicts by the median over all its seeds of all series. For each cell this prints both pooled
medians, the same bounds as lab_vs_sim.sh (goodput within 15 %, stall rate within 1.5x, both
below 1/s agreeing), how many single series met them, and the lab's own spread: the 5-95 %
range of a median of RUNS runs drawn from the pooled runs (bootstrap, seeded per cell), i.e. how far
one series' median can land from the pooled one by chance alone.

All tables must come from the same simulator settings (READER_*, LINK_JITTER, ACK_AT_READ,
SIM_RUNS) and protocol (runs, seconds); a cell missing from some tables is pooled over those
that have it. Prints a Markdown table; exits 1 with one line on bad input.
"""
import json
import random
import statistics
import sys


def fail(msg):
    sys.exit(f"lab_series: {msg}")


def load(path):
    try:
        with open(path) as f:
            t = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(t, dict) or not isinstance(t.get("cells"), list) or "model" not in t:
        fail(f"{path}: not a table from lab_vs_sim.sh TABLE_JSON")
    for c in t["cells"]:
        for k in ("receiver", "len", "case", "lab_mb_s", "lab_stalls_per_s", "sim_mb_s", "sim_stalls_per_s"):
            if k not in c:
                fail(f"{path}: a cell has no {k!r}")
        if not all(isinstance(c[k], list) and c[k] for k in ("lab_mb_s", "lab_stalls_per_s", "sim_mb_s", "sim_stalls_per_s")):
            fail(f"{path}: cell {c['receiver']} {c['len']} {c['case']} has no runs")
    return t


def within(sim_mb, lab_mb, sim_st, lab_st):
    """lab_vs_sim.sh's bounds: goodput within 15 %, stall rate within 1.5x or both below 1/s."""
    lo, hi = sorted((sim_st, lab_st))
    st_ok = hi < 1.0 or (lo > 0 and hi <= 1.5 * lo)
    return lab_mb > 0 and abs(sim_mb - lab_mb) / lab_mb <= 0.15 and st_ok, ("both < 1/s" if hi < 1.0 else
                                                          f"{hi / lo:.2f}x" if lo > 0 else "inf")


def main(paths):
    if not paths:
        fail("usage: lab_series.py TABLE.json...")
    tables = [load(p) for p in paths]
    key = lambda t: (t["model"], t["runs"], t["seconds"], t["sim_runs"])
    for p, t in zip(paths, tables):
        if key(t) != key(tables[0]):
            fail(f"{p}: other settings than {paths[0]} ({key(t)} vs {key(tables[0])})")
    cells = {}
    for t in tables:
        for c in t["cells"]:
            cells.setdefault((c["receiver"], c["len"], c["case"]), []).append(c)
    runs = tables[0]["runs"]
    m = tables[0]["model"]
    print(f"# {len(tables)} series pooled; simulator: " + ", ".join(f"{k}={v}" for k, v in m.items())
          + f", {tables[0]['sim_runs']} seeds per series; lab: {runs} runs of {tables[0]['seconds']:g} s per series")
    print("| receiver | -l | case | series | lab MB/s | lab stalls/s (5-95 % of a "
          f"{runs}-run median) | sim MB/s | sim stalls/s | goodput | stalls | ok | series ok |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    allok = True
    for (rx, L, case), cs in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1])):  # stable: lab order
        lab_mb = statistics.median(x for c in cs for x in c["lab_mb_s"])
        lab_st_all = [x for c in cs for x in c["lab_stalls_per_s"]]
        lab_st = statistics.median(lab_st_all)
        sim_mb = statistics.median(x for c in cs for x in c["sim_mb_s"])
        sim_st = statistics.median(x for c in cs for x in c["sim_stalls_per_s"])
        rng = random.Random(f"{rx} {L} {case}")  # per cell: the same draws whatever else is pooled
        draws = sorted(statistics.median(rng.choices(lab_st_all, k=runs)) for _ in range(4000))
        lo95 = draws[int(0.05 * len(draws))], draws[int(0.95 * len(draws)) - 1]
        ok, ratio = within(sim_mb, lab_mb, sim_st, lab_st)
        allok &= ok
        series_ok = sum(within(statistics.median(c["sim_mb_s"]), statistics.median(c["lab_mb_s"]),
                               statistics.median(c["sim_stalls_per_s"]), statistics.median(c["lab_stalls_per_s"]))[0]
                        for c in cs)
        print(f"| {rx} | {L} | {case} | {len(cs)} | {lab_mb:.2f} | {lab_st:.1f} ({lo95[0]:.1f}-{lo95[1]:.1f}) | "
              f"{sim_mb:.2f} | {sim_st:.1f} | " + (f"{(sim_mb - lab_mb) / lab_mb * 100:+.1f} %" if lab_mb > 0 else "-")
              + f" | {ratio} | "
              f"{'yes' if ok else 'NO'} | {series_ok} of {len(cs)} |")
    print(f"# all pooled cells within bounds: {'yes' if allok else 'no'}")


if __name__ == "__main__":
    main(sys.argv[1:])
