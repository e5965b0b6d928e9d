#!/usr/bin/env bash
# The lab (real Linux kernels in two namespaces) next to the simulator's prediction.
#
#   bench/lab_vs_sim.sh [ACKSTALL] [RUNS] [SECONDS]      # root; defaults build/release/..., 5, 1
#   (env: LENGTHS=a,b,c the write sizes; CASES the matrix cases; CAP_SECS the capture length (2); SIM_BIN another binary
#   for the simulator; KEEP=1 keeps the captures and the lab's JSON in the work directory it
#   names; LAB_DIR=that directory skips the lab and simulates again against its measurements;
#   READER_JITTER=pooled (default) or per-size: see 1.)
#
# 1. Reader latency, measured: `ackstall lab up --ack-mode classic`, a capture on the receiver's
#    veth during one unpatched run per write size, and bench/lab_reader_latency.py: how often, and
#    how late, the reader's read (tcp_cleanup_rbuf) sends the ACK that the second segment could
#    not (docs/STACKS.md §4). Its exponential tail's mean becomes the simulator's
#    app.receiver.read_jitter. The reader's wake-up is the machine's, not the write size's: by
#    default one mean pooled over every size's capture (late reads / ACK pairs of all captures,
#    and the late reads' t3 - t1 averaged over them) is used for every row; env
#    READER_JITTER=per-size uses each size's own capture instead (what this script did before
#    2026-12-04; one 2 s capture per size gave 0.5 us and 46 us for 16384 in two runs).
#    Nothing is fitted to goodput.
# 2. `ackstall lab matrix` for the classic and default receivers, unpatched, seed-chunked and
#    robust (env CASES, e.g. CASES="unpatched chunked"), at
#    -l 2920 7300 8192 15928 16384 32768 (median of RUNS runs of SECONDS s, SCHED_FIFO threads).
# 3. `ackstall sim examples/lab/pingpong-l8192.toml` with the same length/case/receiver, and the
#    table: goodput within 15 % of the lab median, stall rate (completion waits > 20 ms per s)
#    within 1.5x (both below 1 per second counts as agreeing).
# The lab is removed on exit, also on failure or Ctrl-C (`ackstall lab down`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/release/tools/ackstall/ackstall}
sim_bin=${SIM_BIN:-$bin}   # the simulator's binary, if not the lab's
runs=${2:-5}
secs=${3:-1}
lengths=${LENGTHS:-2920,7300,8192,15928,16384,32768}
cap_secs=${CAP_SECS:-2}
base_us=20   # the reader's base wake-up: the completion thread's ~20 us measured in docs/STACKS.md §7
[[ $(id -u) == 0 ]] || { echo "lab_vs_sim: needs root (network namespaces)" >&2; exit 2; }
work=$(mktemp -d /tmp/lab_vs_sim.XXXXXX)
cap_pid=
cleanup() {
  [[ -n $cap_pid ]] && kill "$cap_pid" 2>/dev/null && wait "$cap_pid" 2>/dev/null || true
  "$bin" lab down >/dev/null 2>&1 || true
  if [[ -n ${KEEP:-} ]]; then echo "# work files kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "# lab_vs_sim: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$work/header.txt"

if [[ -z ${LAB_DIR:-} ]]; then
# 1. reader latency from a capture, per write size (it depends on what the machine does while the
#    reader sleeps: measured, under the same SCHED_FIFO threads as the matrix)
echo "{" >"$work/lat.json"
sep=
for L in ${lengths//,/ }; do
  "$bin" lab up --ack-mode classic >/dev/null
  ip netns exec ackstall-b dumpcap -q -i ackstall-vb -s 96 -w "$work/cap-$L.pcapng" 2>/dev/null &
  cap_pid=$!
  sleep 1
  "$bin" lab run -- -l "$L" --emulate-afd=8192 --time "$cap_secs" >"$work/run.txt" 2>&1 || { cat "$work/run.txt" >&2; exit 1; }
  sleep 0.3
  kill "$cap_pid"; wait "$cap_pid" 2>/dev/null || true; cap_pid=
  "$bin" lab down >/dev/null
  one=$(tshark -r "$work/cap-$L.pcapng" -Y 'tcp' -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.len -e tcp.ack \
    | python3 "$here/bench/lab_reader_latency.py" 10.77.0.1 "$base_us")
  echo "# reader latency, classic receiver, -l $L unpatched, ${cap_secs} s capture on the receiver's veth: $one" | tee -a "$work/header.txt"
  printf '%s"%s": %s\n' "$sep" "$L" "$one" >>"$work/lat.json"
  sep=,
done
echo "}" >>"$work/lat.json"

# 2. the lab
for mode in classic default; do
  "$bin" lab matrix --ack-mode "$mode" --runs "$runs" --time "$secs" --lengths ${lengths//,/ } \
    --cases ${CASES:-unpatched chunked robust} --json "$work/lab-$mode.json" >"$work/lab-$mode.txt"
done

else
  work_lab=$LAB_DIR   # reuse a kept run's measurements (KEEP=1), simulate again
  cp "$work_lab"/lat.json "$work_lab"/lab-*.json "$work/"
  sed 's/^/# (reused) /' "$work_lab/header.txt" 2>/dev/null || true
fi

# 3. the simulator and the table
python3 - "$sim_bin" "$here/examples/lab/pingpong-l8192.toml" "$work" "$runs" "$secs" "$base_us" "${READER_JITTER:-pooled}" <<'PY'
import json, math, subprocess, sys
binp, scen, work, runs, secs, base, mode_j = sys.argv[1:8]
lat = json.load(open(f"{work}/lat.json"))
if mode_j == "pooled":
    # One reader for the machine: f = all late reads / all ACK pairs, gap = the late reads'
    # t3 - t1 averaged over the captures (weighted by their late reads), mean = (gap - base) / ln(1/f).
    pairs = sum(v["ack_pairs"] for v in lat.values())
    late = sum(v["late_reads"] for v in lat.values())
    gap = sum(v["late_reads"] * v.get("t3_minus_t1_us_median", 0.0) for v in lat.values()) / late if late else 0.0
    pooled = round(max(gap - float(base), 0.0) / math.log(pairs / late), 1) if late else 0.0
    print(f"# reader latency pooled over {len(lat)} captures: {late} late reads in {pairs} ACK pairs, "
          f"t3 - t1 {gap:.1f} us -> read_jitter {pooled} us (READER_JITTER=per-size: each size its own)")
    for v in lat.values():
        v["read_jitter_us"] = pooled
print(f"# sim: {scen} --set app.receiver.read_latency={base}us --set app.receiver.read_jitter=J "
      f"(J {'pooled' if mode_j == 'pooled' else 'per -l'} as measured above); lab: median of {runs} runs of {secs} s")
print("| receiver | -l | case | read_jitter | lab MB/s (min-max) | lab stalls/s | sim MB/s | sim stalls/s | goodput | stalls | ok |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
allok = True
for mode, prof in (("classic", "linux-pingpong"), ("default", "linux")):
    lab = json.load(open(f"{work}/lab-{mode}.json"))
    for row in lab["rows"]:
        L, case = row["len"], row["case"]
        jitter = lat[str(L)]["read_jitter_us"]
        sets = ["--set", f"app.transmitter.write_len={L}",
                "--set", f"app.transmitter.chunking={ {'chunked': 'seed', 'robust': 'robust'}.get(case, 'none') }",
                "--set", f"receiver.profile={prof}",
                "--set", f"app.receiver.read_latency={base}us",
                "--set", f"app.receiver.read_jitter={jitter}us"]
        out = subprocess.run([binp, "sim", scen, "--json", *sets], check=True, capture_output=True, text=True).stdout
        j = json.loads(out)
        j = j[0] if isinstance(j, list) else j
        sim_mb = j["bytes_delivered"] / j["duration_s"] / 1e6
        sim_st = j["stalls"]["quota-wait"]["count"] / j["duration_s"]
        lab_mb, lab_st = row["median_mb_s"], row["median_stalls_per_s"]
        g = (sim_mb - lab_mb) / lab_mb
        lo, hi = sorted((sim_st, lab_st))
        st_ok = hi < 1.0 or (lo > 0 and hi <= 1.5 * lo)
        ok = abs(g) <= 0.15 and st_ok
        allok &= ok
        ratio = "both < 1/s" if hi < 1.0 else (f"{hi / lo:.2f}x" if lo > 0 else "inf")
        print(f"| {mode} | {L} | {case} | {jitter} us | {lab_mb:.2f} ({min(row['mb_s']):.2f}-{max(row['mb_s']):.2f}) | {lab_st:.1f} "
              f"| {sim_mb:.2f} | {sim_st:.1f} | {g * 100:+.1f} % | {ratio} | {'yes' if ok else 'NO'} |")
print(f"# all cells within bounds: {'yes' if allok else 'no'}")
PY
