#!/usr/bin/env python3
"""Scans every capture of a diagnosis corpus (generate.py's DIR with its manifest.json) with
`ackstall scan --json` and prints the confusion matrix: each capture's truth (its row; captures
whose right answer is "too little to judge" — 3-10 segments, one direction — in a row of their
own) against the cause scan names for the data direction (the problem when there is one, else the
dominant cause; `too_little` for "Too little to judge"). Then the share right per row, the wrong
answers that are not "too little", and the impossible figures (bench/scan_invariants.py's checks).

Usage: score.py --ackstall BIN DIR [--jobs N] [--show-wrong] [--expect-no-wrong [--rows ROW,...]]
Exit 1 with --expect-no-wrong when an answer is wrong (not "too little") or a figure impossible;
with --rows only wrong answers in those rows count ("too_little" names the row of captures whose
right answer is "too little to judge").
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import scan_invariants  # noqa: E402

TOO_LITTLE = "too_little"


def named(doc):
    """(the cause scan names for the busiest direction, that direction) or (too_little, None)."""
    best = None
    for flow in doc.get("flows", []):
        for d in flow.get("directions", []):
            if best is None or d["bytes_sent"] > best["bytes_sent"]:
                best = d
    if best is None:
        return TOO_LITTLE, None
    g = best["diagnosis"]
    if g.get("too_little") or g["mechanism"].startswith("Too little") or not g["accounts"]:
        return TOO_LITTLE, best
    return (g["problem"] or g["dominant"]), best


def scan(ackstall, path):
    r = subprocess.run([ackstall, "scan", "--json", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 1:  # no TCP flow: nothing to judge
        return {"flows": []}
    if r.returncode != 0:
        return {"error": r.stderr.strip()}
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ackstall", required=True)
    ap.add_argument("dir")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show-wrong", action="store_true")
    ap.add_argument("--expect-no-wrong", action="store_true")
    ap.add_argument("--rows", default="", help="with --expect-no-wrong: only these truth rows")
    args = ap.parse_args()
    manifest = json.load(open(os.path.join(args.dir, "manifest.json"), encoding="utf-8"))
    names = sorted(manifest["captures"])
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        docs = list(ex.map(lambda n: scan(args.ackstall, os.path.join(args.dir, n + ".pcap")), names))
    rows = {}
    wrong, impossible = [], []
    asserted = 0  # wrong answers in the rows --expect-no-wrong asserts
    cols = set()
    verdicts = {}  # name -> (what scan named, the busiest direction)
    for name, doc in zip(names, docs):
        e = manifest["captures"][name]
        row = "(too little)" if e["expect"] == TOO_LITTLE else e["truth"]
        if "error" in doc:
            got, d = "error", None
        else:
            got, d = named(doc)
            verdicts[name] = (got, d)
            for _, dd in scan_invariants.directions(doc):
                impossible += [f"{name}: {v}" for v in scan_invariants.check(name, dd)]
        cols.add(got)
        rows.setdefault(row, {}).setdefault(got, 0)
        rows[row][got] += 1
        right = got == e["expect"]
        if not right and got != TOO_LITTLE:
            if not args.rows or e["expect"] in args.rows.split(","):
                asserted += 1
            wrong.append(f"{name}: truth {e['expect']}, named {got}: "
                         + (d["diagnosis"]["mechanism"][:200] if d else doc.get("error", "")))
    cols = sorted(cols - {TOO_LITTLE}) + ([TOO_LITTLE] if TOO_LITTLE in cols else [])
    w = max(len(r) for r in rows) + 2
    print(f"seed {manifest['seed']}, {len(names)} captures; rows: truth, columns: what scan names")
    print("truth".ljust(w) + "".join(c[:12].rjust(13) for c in cols) + "   right  too-little  wrong")
    for row in sorted(rows):
        cells = rows[row]
        n = sum(cells.values())
        expect = TOO_LITTLE if row == "(too little)" else row
        ok = cells.get(expect, 0)
        tl = cells.get(TOO_LITTLE, 0) if expect != TOO_LITTLE else 0
        print(row.ljust(w) + "".join(str(cells.get(c, 0)).rjust(13) for c in cols)
              + f"  {100 * ok / n:5.1f} %  {tl:10d}  {n - ok - tl:5d}")
    # Right per vantage point and per lab kind (issue 37: every vantage point, every loss kind),
    # and whether the offloaded captures' super-segments were recognised (the report says write
    # boundaries and segment counts are unknown).
    for label, key in (("vantage", lambda e: e["at"]), ("lab kind", lambda e: e["kind"] if e["source"] == "lab" else None)):
        groups = {}
        for name, (got, _) in verdicts.items():
            e = manifest["captures"][name]
            k = key(e)
            if k is not None:
                g = groups.setdefault(k, [0, 0])
                g[0] += got == e["expect"]
                g[1] += 1
        print(f"right per {label}: " + ", ".join(f"{k} {r}/{n}" for k, (r, n) in sorted(groups.items())))
    off = [(n, v) for n, v in verdicts.items() if manifest["captures"][n].get("offload")]
    if off:
        said = sum(1 for _, (_, d) in off if d and any("segmentation offload" in w for w in d["diagnosis"]["capture_warnings"]))
        right = sum(1 for n, (got, _) in off if got == manifest["captures"][n]["expect"])
        print(f"offloaded captures: {len(off)}, right {right}, super-segments recognised in {said}")
    print(f"wrong answers (another cause, not 'too little'): {len(wrong)}; impossible figures: {len(impossible)}")
    if args.show_wrong:
        for line in wrong + impossible:
            print("  " + line)
    return 1 if args.expect_no_wrong and (asserted or impossible) else 0


if __name__ == "__main__":
    sys.exit(main())
