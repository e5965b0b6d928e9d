#!/usr/bin/env python3
"""Checks `ackstall scan --json` reports for impossible figures (issue: a diagnosis that holds on
anyone's capture). Reads JSON documents (files, or stdin with '-'); prints one line per violation
and a summary line "N directions, M violations"; exits 1 when any.

Invariants, per direction:
  * duration >= 0; every cause's time >= 0; the causes' times sum to the duration (the accounts);
  * stalled time <= duration; goodput >= 0; bytes ACKed <= bytes sent;
  * every share in the diagnosis within 0..1, the shares sum to 1;
  * a delayed-ACK hold, when reported, <= 500 ms (RFC 1122 4.2.3.2);
  * a problem cause is one of the accounted causes.
Usage: bench/scan_invariants.py REPORT.json... | -
"""
import json
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
