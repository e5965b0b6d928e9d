#!/usr/bin/env bash
# The lab (real Linux kernels in two namespaces) next to the simulator's prediction.
#
#   bench/lab_vs_sim.sh [ACKSTALL] [RUNS] [SECONDS]      # root; defaults build/release/..., 5, 1
#   (env: LENGTHS=a,b,c the write sizes; CASES the matrix cases (unpatched among them); SIM_BIN another binary
#   for the simulator; KEEP=1 keeps the captures and the lab's JSON in the work directory it
#   names; LAB_DIR=that directory skips the lab, analyses its captures again and simulates
#   against its measurements (with the kept run's own runs and seconds); READER_JITTER=same-run
#   (default), pooled or per-size; READER_MODEL=quantiles (default), late or exponential: see 2.;
#   READER_RUNS=per-run (default) or pooled: see 3.; SIM_RUNS the simulator's seeds per cell,
#   default 25; LINK_JITTER=none (default) or measured: the shaper's lateness, see 2.;
#   LINK_JITTER=trace: the same lateness replayed in its order, see 2.;
#   ACK_AT_READ=on (default) or off: pairs ACKed at the read, the reader's own latency, see 2.;
#   EXAMPLES=write rewrites the lab examples' reader files from this run, see 5.;
#   TABLE_JSON=FILE also writes the table with every lab run's and every simulated seed's figures,
#   for bench/lab_series.py, which pools several kept runs)
#
# 1. The lab: `ackstall lab matrix` for the classic and default receivers, unpatched,
#    seed-chunked and robust (env CASES, e.g. CASES="unpatched chunked"), at
#    -l 2920 7300 8192 15928 16384 32768 (median of RUNS runs of SECONDS s, SCHED_FIFO threads);
#    the classic matrix captures every cell on the receiver's veth (`--capture-dir`).
# 2. Reader latency, measured in the same runs: bench/lab_reader_latency.py on each classic
#    unpatched cell's capture: how often, and how late, the reader's read (tcp_cleanup_rbuf)
#    sends the ACK that the second segment could not (docs/STACKS.md §4): that fraction of the
#    reader's wake-ups comes late (app.receiver.read_wakeup's rare term, "N ppm * (...)"), the
#    others on time. READER_MODEL=quantiles (default): the late reads delayed as the capture's own
#    percentiles ("N ppm * quantiles(...)"); =late: spread as a shifted exponential through their
#    p10 and median ("N ppm * (C + exp(M))"; the default until 2026-12-04 23:40 UTC: pooled over
#    seven kept lab series it predicts classic 8192 at 1.60x the lab's stall rate, quantiles at
#    1.33x, docs/VALIDATION.md §4); =exponential: the fraction becomes the mean of an exponential
#    tail (an "exp(M)" term of app.receiver.read_wakeup).
#    READER_JITTER=same-run (default): each classic unpatched cell is simulated with its own
#    runs' capture (the lab's reader moves between runs minutes apart), every other cell with the
#    counts pooled over those captures; =pooled: the pooled counts for every cell; =per-size:
#    each size's own for every row. Nothing is fitted to goodput or to the stall rate.
#    LINK_JITTER=measured: the same captures give the tbf shaper's lateness
#    (bench/lab_link_jitter.py), pooled, as link.shaper_lateness = quantiles(...) for every cell (over
#    eight kept runs 279 of 288 cells against 280 without: docs/VALIDATION.md §4); =trace: each
#    size's capture's lateness in the order it came (link.data_lateness = trace(...), an arrival delay
#    per data segment), which keeps the lab's segment spacing where independent draws from the
#    quantiles put far too many segments back to back (docs/VALIDATION.md §4).
#    ACK_AT_READ=on (default; =off: at the arrival, as before 2026-12-04 23:40 UTC): every Linux
#    receiver ACKs a pair at the read, not at the second segment's
#    arrival (receiver.ack.ack_at_read, the lab's regime: docs/STACKS.md §4), each size's capture
#    gives the reader's latency (the delay of its pair ACKs: app.receiver.read_wakeup =
#    quantiles(...), no base) for every cell of that size, and a late read is one that latency does not
#    explain (lab_reader_latency.py at-read). Only the classic receiver is captured: that the
#    default receiver's cells share its regime and latency is assumed, not measured. Over eight
#    kept runs 279 (READER_MODEL=quantiles) and 278 (late) of 288 cells, against 278 and 280
#    without (docs/VALIDATION.md §4).
# 3. `ackstall sim examples/lab/pingpong-l8192.toml` with the same length/case/receiver, run as
#    the lab runs (timed runs of SECS s, app.transmitter.duration, seeds 1..SIM_RUNS; medians;
#    a classic unpatched cell gives seed s the late-read rate of its capture's connection
#    (s - 1) mod (connections), i.e. of one lab run, READER_RUNS=per-run),
#    and the table: goodput within 15 % of the lab median, stall rate (completion waits > 20 ms per s)
#    within 1.5x (both below 1 per second counts as agreeing).
# 4. The reader check: each classic unpatched cell simulated once per lab run with the pcap taken
#    on the receiver's side (`sim --pcap-at receiver`) and analysed by lab_reader_latency.py as
#    the lab's capture is: late reads, timer ACKs, delays and offsets side by side (always with
#    each run's own late-read rate, whatever READER_JITTER and READER_RUNS say).
# 5. The lab examples include the measured reader of one run (examples/lab/include/reader-l*.toml,
#    app.receiver.read_wakeup; the cells here set their own): EXAMPLES=write rewrites those files
#    from this run's per-size "reader latency" lines (bench/lab_reader_examples.py), as does
#    `bench/lab_reader_examples.py OUT` on a saved output.
# The lab is removed on exit, also on failure or Ctrl-C (`ackstall lab down`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/release/tools/ackstall/ackstall}
sim_bin=${SIM_BIN:-$bin}   # the simulator's binary, if not the lab's
runs=${2:-5}
secs=${3:-1}
lengths=${LENGTHS:-2920,7300,8192,15928,16384,32768}
base_us=20   # the reader's base wake-up: the completion thread's ~20 us measured in docs/STACKS.md §7
[[ $(id -u) == 0 ]] || { echo "lab_vs_sim: needs root (network namespaces)" >&2; exit 2; }
[[ " ${CASES:-unpatched} " == *" unpatched "* ]] || { echo "lab_vs_sim: CASES must include unpatched (its captures give the reader latency)" >&2; exit 2; }
work=$(mktemp -d /tmp/lab_vs_sim.XXXXXX)
cleanup() {
  "$bin" lab down >/dev/null 2>&1 || true
  if [[ -n ${KEEP:-} ]]; then echo "# work files kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "# lab_vs_sim: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$work/header.txt"

if [[ -z ${LAB_DIR:-} ]]; then
# 1. the lab; the classic receiver's cells captured on its veth
mkdir -p "$work/cap"
for mode in classic default; do
  capture=()
  [[ $mode == classic ]] && capture=(--capture-dir "$work/cap")
  "$bin" lab matrix --ack-mode "$mode" --runs "$runs" --time "$secs" --lengths ${lengths//,/ } \
    --cases ${CASES:-unpatched chunked robust} "${capture[@]}" --json "$work/lab-$mode.json" >"$work/lab-$mode.txt"
done

else
  work_lab=$LAB_DIR   # reuse a kept run's measurements (KEEP=1), simulate again
  cp "$work_lab"/lab-*.json "$work/"
  ln -s "$work_lab/cap" "$work/cap"
  sed 's/^/# (reused) /' "$work_lab/header.txt" 2>/dev/null | grep -v -e 'reader latency' -e 'shaper lateness' || true
  # The kept run's own protocol (its runs and seconds), whatever the command line says.
  read -r runs secs < <(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["config"]; print(c["runs"], c["seconds"])' "$work/lab-classic.json")
  echo "# (reused) lab protocol: $runs runs of $secs s each"
fi

# 2. reader latency from the classic unpatched cells' own captures (also for LAB_DIR: the
#    captures are analysed again, so a kept run gets today's analysis)
#    and the shaper's lateness from the same captures (bench/lab_link_jitter.py)
echo "{" >"$work/lat.json"
echo "{" >"$work/jit.json"
sep=
for L in ${lengths//,/ }; do
  tshark -r "$work/cap/$L-unpatched.pcapng" -Y 'tcp' -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.len -e tcp.ack \
    -e tcp.stream -e frame.len >"$work/fields.tsv"
  at_read=; [[ ${ACK_AT_READ:-on} == on ]] && at_read=at-read
  one=$(python3 "$here/bench/lab_reader_latency.py" 10.77.0.1 "$base_us" "$L" $at_read <"$work/fields.tsv")
  trace=; [[ ${LINK_JITTER:-none} == trace ]] && trace=--trace
  jit=$(python3 "$here/bench/lab_link_jitter.py" 10.77.0.1 "$L" $trace <"$work/fields.tsv")
  echo "# reader latency, classic receiver, -l $L unpatched, its $runs runs' capture on the receiver's veth: $one" | tee -a "$work/header.txt"
  echo "# shaper lateness, same capture: $(python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("delta_us_percentiles", None); d.pop("delta_us_trace", None); print(json.dumps(d))' <<<"$jit")" | tee -a "$work/header.txt"
  printf '%s"%s": %s\n' "$sep" "$L" "$one" >>"$work/lat.json"
  printf '%s"%s": %s\n' "$sep" "$L" "$jit" >>"$work/jit.json"
  sep=,
done
rm -f "$work/fields.tsv"
echo "}" >>"$work/lat.json"
echo "}" >>"$work/jit.json"

# 3. the simulator and the table
python3 - "$sim_bin" "$here/examples/lab/pingpong-l8192.toml" "$work" "$runs" "$secs" "$base_us" "${READER_JITTER:-same-run}" "${READER_MODEL:-quantiles}" "${SIM_RUNS:-25}" "${READER_RUNS:-per-run}" "${LINK_JITTER:-none}" "$here/bench" "${ACK_AT_READ:-on}" "${TABLE_JSON:-}" "${LAB_DIR:-$work}" <<'PY'
import json, math, statistics, subprocess, sys
binp, scen, work, runs, secs, base, mode_j, model, sim_runs, reader_runs, link_jitter, bench, ack_at_read, table_json, lab_dir = sys.argv[1:16]
if ack_at_read not in ("off", "on"):
    sys.exit(f"lab_vs_sim: ACK_AT_READ must be off or on (got {ack_at_read!r})")
if link_jitter not in ("none", "measured", "trace"):
    sys.exit(f"lab_vs_sim: LINK_JITTER must be none, measured or trace (got {link_jitter!r})")
if reader_runs not in ("per-run", "pooled") or int(sim_runs) < 1:
    sys.exit(f"lab_vs_sim: READER_RUNS must be per-run or pooled (got {reader_runs!r}), SIM_RUNS >= 1 (got {sim_runs})")
if model not in ("quantiles", "late", "exponential"):
    sys.exit(f"lab_vs_sim: READER_MODEL must be quantiles, late or exponential (got {model!r})")
per_run = reader_runs == "per-run"
base = float(base)
lat = json.load(open(f"{work}/lat.json"))
# LINK_JITTER=measured: the shaper's lateness of every classic unpatched capture, pooled (each
# percentile averaged, weighted by the capture's samples), for every cell: one link, one host.
link_sets = []
if link_jitter == "measured":
    jit = [v for v in json.load(open(f"{work}/jit.json")).values() if "delta_us_percentiles" in v]
    if not jit:
        sys.exit("lab_vs_sim: LINK_JITTER=measured: no capture gave the shaper's lateness (writes of 3 or more segments needed)")
    n = sum(v["samples"] for v in jit)
    pooled_q = [sum(v["samples"] * v["delta_us_percentiles"][i] for v in jit) / n for i in range(101)]
    link_sets = ["--set", "link.shaper_lateness=quantiles(" + ",".join(f"{x:.1f}us" for x in pooled_q) + ")"]
    print(f"# shaper lateness pooled over {len(jit)} captures ({n} samples): p10/p50/p90/p99/p100 "
          + "/".join(f"{pooled_q[i]:.0f}" for i in (10, 50, 90, 99, 100)) + " us (LINK_JITTER=measured)")
# LINK_JITTER=trace: each size's own capture's lateness as the sequence it came in
# (link.data_lateness = trace(...): one element per data segment, write by write), for every cell of that
# size; seed s replays the stretch of whole writes after seed s - 1's (wrapping), so that the seeds
# together replay the capture and each starts on a write's first segment.
traces = {}
if link_jitter == "trace":
    for k, v in json.load(open(f"{work}/jit.json")).items():
        if not v.get("delta_us_trace"):
            sys.exit(f"lab_vs_sim: LINK_JITTER=trace: the -l {k} capture gave no shaper lateness (writes of 3 or more segments needed)")
        traces[int(k)] = (v["delta_us_trace"], v["trace_segments_per_write"])
    print("# shaper lateness replayed as each size's capture sequence: "
          + ", ".join(f"-l {k} {len(t) // n} writes" for k, (t, n) in sorted(traces.items())) + " (LINK_JITTER=trace)")
ARG_MAX = 120_000  # the kernel takes at most 128 KiB per argument (MAX_ARG_STRLEN)

def link_for(L, seed):
    """The link keys of one simulated run: none, the pooled quantiles, or a stretch of L's trace
    (as many whole writes as fit in one argument; seed s starts where seed s - 1's ended)."""
    if link_jitter != "trace":
        return link_sets
    t, per_write = traces[L]
    writes = len(t) // per_write
    items = [f"{round(x)}us" for x in t]
    size = 0
    n = 0  # writes in one stretch: as many as fit in one argument
    while n < writes and size + sum(len(i) + 1 for i in items[n * per_write:(n + 1) * per_write]) < ARG_MAX:
        size += sum(len(i) + 1 for i in items[n * per_write:(n + 1) * per_write])
        n += 1
    first = ((seed - 1) * n) % writes
    block = [items[((first + w) % writes) * per_write + i] for w in range(n) for i in range(per_write)]
    return ["--set", "link.data_lateness=trace(" + ",".join(block) + ")"]

def reader(v):
    """The reader's wake-up from one capture's counts (or the pooled ones): the terms it adds to
    app.receiver.read_wakeup (after the cell's own, see wakeup_set) + label."""
    pairs, late = v["ack_pairs"], v["late_reads"]
    if not late or not pairs:
        return [], "on time"
    ppm = round(1e6 * late / pairs)  # late reads per million wake-ups (late and quantiles)
    if model == "quantiles":
        # What the capture shows: `late` of `pairs` reads came after the third segment, their delays
        # after the first as the capture's percentiles (p0..p100): "N ppm * quantiles(...)" in
        # app.receiver.read_wakeup, less the base wake-up every read has; all others on time. The late reads cluster just
        # after the third segment and have a long tail, which the percentiles keep (VALIDATION §4).
        # Below 10 late reads every late read at the median.
        pct = v.get("late_read_after_1st_us_percentiles")
        if pct is None or v.get("spread_n", late) < 10:
            pct = [v["late_read_after_1st_us_median"]] * 2
        qs = ",".join(f"{max(d - base, 0.0):.1f}us" for d in pct)
        return [f"{ppm}ppm * quantiles({qs})"], \
               f"{ppm} ppm, late by {pct[0]:.0f}/{pct[len(pct) // 2]:.0f}/{pct[len(pct) * 9 // 10]:.0f}/{pct[-1]:.0f} us (p0/p50/p90/p100)"
    if model == "late":
        # What the capture shows: `late` of `pairs` reads came after the third segment, spread as the
        # capture's p10 and median of their delay after the first (a shifted exponential through
        # both: shift + Exp(mean), whose p10 and p50 are shift + 0.105 mean and shift + 0.693 mean);
        # all others on time. Captures without the p10 (older kept runs): every late read at the median.
        q = v.get("late_read_after_1st_us_p10_p50_p90")
        # The spread needs enough late reads: below 10 the quantiles are guesses (statistics'
        # exclusive method puts p10 below the smallest); then every late read at the median.
        p10 = q[0] if q and v.get("spread_n", late) >= 10 else None
        med = v["late_read_after_1st_us_median"]
        mean = max(med - p10, 0.0) / (math.log(2) - math.log(1 / 0.9)) if p10 is not None else 0.0
        extra = max(med - base - mean * math.log(2), 0.0)
        return [f"{ppm}ppm * ({extra:.1f}us + exp({mean:.1f}us))"], \
               f"{ppm} ppm +{extra:.0f} us + exp {mean:.0f} us"
    # exponential: a tail of mean (t3 - t1 - base) / ln(pairs / late) (bench/lab_reader_latency.py)
    mean = max(v["t3_minus_t1_us_median"] - base, 0.0) / math.log(pairs / late)
    return [f"exp({mean:.1f}us)"], f"exp {mean:.1f} us"

def run_readers(v):
    """One reader per lab run: that run's connection's late-read rate, the spread from the whole
    capture (seed s simulates connection (s - 1) mod their number)."""
    return [reader({**v, "ack_pairs": r["ack_pairs"], "late_reads": r["late_reads"], "spread_n": v["late_reads"]})[0]
            if r["ack_pairs"] and r["late_reads"] else [] for r in v["per_connection"]]

def cell_sets(L, case, prof):
    """The simulator's keys for one lab cell (the link comes on top) and the first terms of its
    reader's wake-up (the reader's own terms follow: wakeup_set)."""
    # The example includes the lab's reader of one run (examples/lab/include/reader-l8192.toml,
    # bench/lab_reader_examples.py): replaced whole by this run's app.receiver.read_wakeup
    # (wakeup_set).
    sets = ["--set", f"app.transmitter.write_len={L}",
            "--set", f"app.transmitter.chunking={ {'chunked': 'seed', 'robust': 'robust'}.get(case, 'none') }",
            "--set", f"receiver.profile={prof}"]
    if ack_at_read == "on":
        # Pairs ACKed at the read; the reader's latency = this size's pair-ACK delays.
        pct = lat.get(str(L), {}).get("read_us_percentiles")
        if not pct:
            sys.exit(f"lab_vs_sim: ACK_AT_READ=on: the -l {L} capture has no ACK pairs to give the reader's latency")
        return sets + ["--set", "receiver.ack.ack_at_read=true"], ["quantiles(" + ",".join(f"{x:.1f}us" for x in pct) + ")"]
    return sets + ["--set", "receiver.ack.ack_at_read=false"], [f"{base:g}us"]

def wakeup_set(cell_terms, reader_terms):
    """One --set of the reader's whole wake-up: the cell's terms (the pair-ACK quantiles or the
    base), then the reader's (an exp() tail or a rare late term), in the order they are drawn."""
    return ["--set", "app.receiver.read_wakeup=" + (" + ".join(cell_terms + reader_terms) or "none")]

pooled = None
if mode_j in ("pooled", "same-run"):
    # One reader for the machine: all captures' late reads and ACK pairs; the late reads' delays
    # averaged over the captures (weighted by their late reads).
    late = sum(v["late_reads"] for v in lat.values())
    pooled = {"ack_pairs": sum(v["ack_pairs"] for v in lat.values()), "late_reads": late}
    for k in ("t3_minus_t1_us_median", "late_read_after_1st_us_median"):
        pooled[k] = sum(v["late_reads"] * v.get(k, 0.0) for v in lat.values()) / late if late else 0.0
    qs = [(v["late_reads"], v.get("late_read_after_1st_us_p10_p50_p90")) for v in lat.values() if v["late_reads"]]
    if late and all(q is not None for _, q in qs):  # the late reads' spread, weighted the same way
        pooled["late_read_after_1st_us_p10_p50_p90"] = [sum(n * q[i] for n, q in qs) / late for i in range(3)]
    ds = [(v["late_reads"], v.get("late_read_after_1st_us_percentiles")) for v in lat.values() if v["late_reads"]]
    if late and all(d is not None for _, d in ds):
        pooled["late_read_after_1st_us_percentiles"] = [sum(n * d[i] for n, d in ds) / late for i in range(101)]
    print(f"# reader latency pooled over {len(lat)} captures: {late} late reads in {pooled['ack_pairs']} ACK pairs "
          f"-> {reader(pooled)[1]} (READER_JITTER={mode_j}, READER_MODEL={model})")
reader_keys = ("receiver.ack.ack_at_read=true, app.receiver.read_wakeup = quantiles(each size's pair-ACK delays) (ACK_AT_READ=on)"
               if ack_at_read == "on" else f"app.receiver.read_wakeup={base:g}us")
print(f"# sim: {scen} --set {reader_keys} + the reader above (READER_JITTER={mode_j}, "
      f"READER_MODEL={model}, READER_RUNS={reader_runs}), --set app.transmitter.duration={secs}s, seeds 1..{sim_runs}; "
      f"lab: median of {runs} runs of {secs} s; sim: median of {sim_runs}")
print("| receiver | -l | case | reader | lab MB/s (min-max) | lab stalls/s | sim MB/s | sim stalls/s | goodput | stalls | ok |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
allok = True
table = {"lab_dir": lab_dir, "runs": int(runs), "seconds": float(secs), "sim_runs": int(sim_runs),
         "model": {"READER_JITTER": mode_j, "READER_MODEL": model, "READER_RUNS": reader_runs,
                   "LINK_JITTER": link_jitter, "ACK_AT_READ": ack_at_read}, "cells": []}
for mode, prof in (("classic", "linux-pingpong"), ("default", "linux")):
    lab = json.load(open(f"{work}/lab-{mode}.json"))
    for row in lab["rows"]:
        L, case = row["len"], row["case"]
        if str(L) not in lat:  # LAB_DIR with LENGTHS: only the sizes asked for
            continue
        own = mode == "classic" and case == "unpatched" and mode_j != "pooled"
        v = lat[str(L)] if own or pooled is None else pooled
        rd, label = reader(v)
        # READER_RUNS=per-run (default): a cell with its own capture simulates each lab run with
        # the late-read rate of that run's connection (the lab's reader moves between the runs of
        # one cell too: one run in five with 5-10x the late reads of the others), the spread from
        # the whole capture; seed s uses connection (s - 1) mod (the capture's connections).
        # =pooled: the whole capture's rate. READER_JITTER=per-size and =pooled use pooled rates.
        per = v.get("per_connection") if own and mode_j != "per-size" and per_run else None
        readers = run_readers(v) if per else [rd]
        if per:
            label = "per run " + "/".join(str(round(1e6 * r["late_reads"] / r["ack_pairs"])) if r["ack_pairs"] else "0"
                                          for r in per) + " ppm" + label[label.index(" ppm") + 4:] if " ppm" in label else label
        base_sets, cell_terms = cell_sets(L, case, prof)
        # The lab's protocol: RUNS timed runs of SECS s (ttcp -t --time), each from its own
        # connection, medians over them; the runs differ in the simulator's seed.
        mbs, sts = [], []
        for seed in range(1, int(sim_runs) + 1):
            sets = base_sets + link_for(L, seed) + wakeup_set(cell_terms, readers[(seed - 1) % len(readers)])
            out = subprocess.run([binp, "sim", scen, "--json", *sets, "--set", f"seed={seed}",
                                  "--set", f"app.transmitter.duration={secs}s",
                                  "--set", "app.transmitter.writes=100000000"],
                                 check=True, capture_output=True, text=True).stdout
            j = json.loads(out)
            j = j[0] if isinstance(j, list) else j
            mbs.append(j["bytes_delivered"] / j["duration_s"] / 1e6)
            sts.append(j["stalls"]["quota-wait"]["count"] / j["duration_s"])
        sim_mb, sim_st = statistics.median(mbs), statistics.median(sts)
        lab_mb, lab_st = row["median_mb_s"], row["median_stalls_per_s"]
        g = (sim_mb - lab_mb) / lab_mb
        lo, hi = sorted((sim_st, lab_st))
        st_ok = hi < 1.0 or (lo > 0 and hi <= 1.5 * lo)
        ok = abs(g) <= 0.15 and st_ok
        allok &= ok
        ratio = "both < 1/s" if hi < 1.0 else (f"{hi / lo:.2f}x" if lo > 0 else "inf")
        table["cells"].append({"receiver": mode, "len": L, "case": case, "lab_mb_s": row["mb_s"],
                               "lab_stalls_per_s": row.get("stalls_per_s") or [n / float(secs) for n in row["stalls"]],
                               "sim_mb_s": mbs, "sim_stalls_per_s": sts})
        print(f"| {mode} | {L} | {case} | {label} | {lab_mb:.2f} ({min(row['mb_s']):.2f}-{max(row['mb_s']):.2f}) | {lab_st:.1f} "
              f"| {sim_mb:.2f} | {sim_st:.1f} | {g * 100:+.1f} % | {ratio} | {'yes' if ok else 'NO'} |")
print(f"# all cells within bounds: {'yes' if allok else 'no'}")
if table_json:
    with open(table_json, "w") as f:
        json.dump(table, f)

# The reader seen the same way on both sides: each classic unpatched cell simulated once per lab
# run (seeds 1..RUNS, that run's reader) with the pcap taken on the receiver's side
# (`--pcap-at receiver`, as the lab's dumpcap on its veth), analysed by the same
# bench/lab_reader_latency.py as the lab's capture. Where the stall rates differ, this shows
# whether the late reads differ in number, in delay or in where in a write they fall.
print()
print("# reader check, classic receiver, unpatched: the lab's capture and the simulator's, same analysis")
print("| -l | capture | ACK pairs | pair's ACK after its 2nd, p50/p90 us | late reads (per M pairs) | timer ACKs (per late read) "
      "| late read after the 1st, p10/p50/p90 us | late reads by offset in the write (top 3) | shifted writes: on the timer / restored "
      "| writes by ACK pattern (top 4) |")
print("|---|---|---|---|---|---|---|---|---|---|")
lab_rows = {r["len"]: r for r in json.load(open(f"{work}/lab-classic.json"))["rows"] if r["case"] == "unpatched"}
for L in sorted(int(k) for k in lat):
    if L not in lab_rows:
        continue
    v = lat[str(L)]
    readers = run_readers(v) if v.get("per_connection") else [reader(v)[0]]
    lines = []
    check_sets, cell_terms = cell_sets(L, "unpatched", "linux-pingpong")
    for seed in range(1, int(runs) + 1):
        pcap = f"{work}/reader-check.pcap"
        subprocess.run([binp, "sim", scen, *check_sets, *link_for(L, seed),
                        *wakeup_set(cell_terms, readers[(seed - 1) % len(readers)]), "--set", f"seed={seed}", "--set", f"app.transmitter.duration={secs}s",
                        "--set", "app.transmitter.writes=100000000", "--pcap", pcap, "--pcap-at", "receiver"],
                       check=True, capture_output=True)
        out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "frame.time_epoch", "-e", "ip.src", "-e", "tcp.seq",
                              "-e", "tcp.len", "-e", "tcp.ack"], check=True, capture_output=True, text=True).stdout
        lines += [f"{line}\t{seed}" for line in out.splitlines()]  # one connection per run
    at_read = ["at-read"] if ack_at_read == "on" else []
    sim = json.loads(subprocess.run(["python3", f"{bench}/lab_reader_latency.py", "10.0.0.1", f"{base:g}", str(L), *at_read],
                                    input="\n".join(lines) + "\n", check=True, capture_output=True, text=True).stdout)
    for name, d in (("lab", v), ("sim", sim)):
        pairs, late, timer = d["ack_pairs"], d["late_reads"], d["timer_acks"]
        q = d.get("late_read_after_1st_us_p10_p50_p90")
        offs = d.get("late_reads_by_write_offset") or {}
        top = sorted(offs.items(), key=lambda kv: -kv[1][0])[:3]
        rp = d.get("read_us_percentiles")
        pats = list((d.get("ack_patterns") or {}).items())[:4]
        print(f"| {L} | {name} | {pairs} | {f'{rp[50]:.0f}/{rp[90]:.0f}' if rp else '-'} | "
              f"{late} ({1e6 * late / pairs if pairs else 0:.0f}) | {timer} "
              f"({timer / late if late else 0:.2f}) | {'/'.join(f'{x:.0f}' for x in q) if q else '-'} | "
              + (", ".join(f"{k}: {c[0]}" for k, c in top) or "-") + " | "
              + (f"{d['shifted_writes']['timer']} / {d['shifted_writes']['restored']}" if "shifted_writes" in d else "-") + " | "
              + (", ".join(f"{k}: {c}" for k, c in pats) or "-") + " |")
PY

# 5. EXAMPLES=write: this run's reader lines become the lab examples' reader files
#    (examples/lab/include/reader-l*.toml, bench/lab_reader_examples.py; LENGTHS must hold 8192
#    and 16384). The lab figures LabPrediction.Example* compares them with
#    (tests/sim_validation/seed_table_test.cc) are this run's table: update them with it.
if [[ ${EXAMPLES:-} == write ]]; then
  python3 "$here/bench/lab_reader_examples.py" "$work/header.txt"
  echo "# examples written: update LabPrediction.Example*'s lab figures from the table above" >&2
fi
