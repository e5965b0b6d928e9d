#!/usr/bin/env python3
"""Checks `ackstall scan --json` reports for impossible figures (issue: a diagnosis that holds on
anyone's capture). Reads JSON documents (files, or stdin with '-'); prints one line per violation
and a summary line "N directions, M violations"; exits 1 when any.

Invariants, per direction:
  * duration >= 0; every cause's time >= 0; the causes' times sum to the duration (the accounts);
  * stalled time <= duration; goodput >= 0; bytes ACKed <= bytes sent;
  * every share in the diagnosis within 0..1, the shares sum to 1;
  * a delayed-ACK hold, when reported, <= 500 ms (RFC 1122 4.2.3.2);
  * a problem cause is one of the accounted causes;
  and, from issue 37 (what the first checks missed):
  * no more segments resent than sent (each segment resent counts once, however often it was
    resent: the retransmissions are counted apart, `retransmissions` in the text report);
  * the receiver's stack fitted by its timer ("fits Linux") is among the timers the hold fits: one
    hold, one stack's timer, never two that differ;
  * the problem's share in the verdict ("(97 % of the time") is its share in the accounts;
  * a flight called flat ("stays flat") has flat percentiles (25th >= 70 % of the 90th);
  * "too little to judge" names no problem;
  * causes said to look alike (a per-send quota and Nagle) do not rank TCP_NODELAY first;
  * offloaded super-segments (segments larger than the MSS) give no write size in segments.
Usage: bench/scan_invariants.py REPORT.json... | -
"""
import json
import re
import sys


def directions(doc):
    for capture in doc.get("captures", [doc]):
        for flow in capture.get("flows", []):
            for d in flow.get("directions", []):
                yield capture.get("file", "?"), d


def check(name, d):
    bad = []
    dur = d["duration_s"]
    causes = d["time_by_cause_s"]
    if dur < 0:
        bad.append(f"duration {dur} < 0")
    if any(v < 0 for v in causes.values()):
        bad.append(f"a negative cause time {causes}")
    if abs(sum(causes.values()) - dur) > 1e-6 * max(1.0, dur):
        bad.append(f"causes sum to {sum(causes.values())}, duration {dur}")
    if d["stalled_s"] > dur + 1e-9:
        bad.append(f"stalled {d['stalled_s']} s > duration {dur} s")
    if d["goodput_bytes_per_s"] < 0:
        bad.append("negative goodput")
    if d["bytes_acked"] > d["bytes_sent"]:
        bad.append("more bytes ACKed than sent")
    hold = d.get("delayed_ack_timeout_ms")
    if hold is not None and not 0 <= hold <= 500:
        bad.append(f"delayed-ACK hold {hold} ms outside 0..500")
    g = d["diagnosis"]
    shares = [a["share"] for a in g["accounts"]]
    if any(not 0 <= s <= 1 for s in shares):
        bad.append(f"a share outside 0..1: {shares}")
    if shares and abs(sum(shares) - 1) > 1e-6:
        bad.append(f"shares sum to {sum(shares)}")
    if g["problem"] is not None and g["problem"] not in [a["cause"] for a in g["accounts"]]:
        bad.append(f"problem {g['problem']} not among the accounts")
    if d["retransmitted_segments"] > d["data_segments"]:
        bad.append(f"{d['retransmitted_segments']} segments resent of {d['data_segments']} sent")
    fitted = re.search(r"fits (Linux|Windows|a BSD)", g["receiver_stack"]["evidence"])
    if fitted and g["timer_fits"]:
        want = {"Linux": ("Linux",), "Windows": ("Windows",), "a BSD": ("OpenBSD", "FreeBSD", "pre-2001 BSD")}[fitted[1]]
        if not any(f.startswith(want) for f in g["timer_fits"]):
            bad.append(f"receiver fitted to {fitted[1]}, its hold to {g['timer_fits']}")
    said = re.search(r"Problem: .*?\((\d+) % of the time", g["mechanism"])
    if said and g["problem"] is not None:
        share = next(a["share"] for a in g["accounts"] if a["cause"] == g["problem"])
        if abs(int(said[1]) - 100 * share) > 1:
            bad.append(f"the verdict says {said[1]} % for {g['problem']}, the accounts {100 * share:.1f} %")
    if "stays flat" in g["mechanism"]:
        pct = re.search(r"(\d+) / (\d+) / (\d+) bytes \(25th / 50th / 90th percentile\)", " ".join(g["evidence"]))
        if pct and 10 * int(pct[1]) < 7 * int(pct[3]):
            bad.append(f"a flight called flat with percentiles {pct[1]} / {pct[2]} / {pct[3]}")
    if g["mechanism"].startswith("Too little") and g["problem"] is not None:
        bad.append(f"too little to judge, yet the problem {g['problem']}")
    if "look alike" in g["mechanism"] and g["fixes"] and "disable Nagle" in g["fixes"][0]:
        bad.append("a quota and Nagle said to look alike, TCP_NODELAY fix 1")
    if any("larger than the announced MSS" in w for w in g.get("capture_warnings", [])) and \
            re.search(r"\d+-byte write in \d+ segment", g["mechanism"]):
        bad.append("offloaded segments, yet writes counted in segments")
    return [f"{name} {d['sender']} -> {d['receiver']}: {b}" for b in bad]


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    n = 0
    violations = []
    for p in paths:
        text = sys.stdin.read() if p == "-" else open(p, encoding="utf-8").read()
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            print(f"scan_invariants: {p}: not JSON: {e}", file=sys.stderr)
            return 2
        for name, d in directions(doc):
            n += 1
            violations += check(name, d)
    for v in violations:
        print(v)
    print(f"{n} directions, {len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
