#!/usr/bin/env bash
# Issue 39's proof on the lab: the same lab transfers read by `ackstall watch` at the sender (the
# kernel's accounting, in ackstall-a) and by `ackstall scan` on a capture of them (dumpcap at the
# receiver's veth, as bench/scan_cause_corpus.sh takes its corpus, or at the sender's for the
# transfers over the delay line: below) name the same cause, and the time each gives that cause
# agrees within 10 % (of scan's); on the delayed-ACK transfers, watch --events shows the stalls
# with the sends behind them. Root (namespaces) and dumpcap; skipped otherwise.
# Usage: watch_lab_vs_scan.sh ACKSTALL SOURCE_DIR [CASE...]   (default: every case)
#   CAPTURE_SIDE=a|b: capture every case beside the sender (a) or the receiver (b).
source "$(dirname "$0")/script_test_lib.sh"
ackstall=$1
src=$2
shift 2
[ "$(id -u)" = 0 ] || { echo "SKIP: the lab needs root (network namespaces)"; exit 77; }
require dumpcap "Debian package wireshark-common"
require python3
require ip "Debian package iproute2"
private_dir watch-lab
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$ackstall" lab down >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] && echo "kept $dir" || rm -rf "$dir"
}
trap cleanup EXIT
wait_for_file() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }

# The lab's namespace names are global: another run's lab (another checkout's tests) is waited
# for, never replaced (lab up would remove it as stale). Up to 5 minutes, then a skip.
wait_lab_free() {
  for _ in $(seq 3000); do
    ip netns list | grep -q '^ackstall-' || return 0
    sleep 0.1
  done
  echo "SKIP: another lab stayed up for 5 minutes"
  exit 77
}

# run NAME "LAB_UP_ARGS" "RECEIVER_PIPELINE" "SENDER_PIPELINE" [CAPTURE_SIDE: b (default) or a]
run() {
  local name=$1 up=$2 rx=$3 tx=$4 side=${CAPTURE_SIDE:-${5:-b}}
  # Another checkout's lab can come up between the wait and ours: its `lab up` or ours fails; retry.
  local try
  for try in 1 2 3; do
    wait_lab_free
    # shellcheck disable=SC2086
    "$ackstall" lab up $up > "$dir/lab-up.txt" 2>&1 && break
    [ "$try" = 3 ] && fail "$name: lab up failed 3 times: $(cat "$dir/lab-up.txt")"
    sleep 1
  done
  ip netns exec "ackstall-$side" dumpcap -q -i "ackstall-v$side" -s 96 -f 'tcp port 5001' -w "$dir/$name.pcapng" 2>/dev/null &
  local cap=$!
  pids=("$cap")
  wait_for_file "$dir/$name.pcapng" || fail "$name: dumpcap wrote nothing"
  ip netns exec ackstall-a "$ackstall" watch --events --port 5001 --interval 20ms --json > "$dir/$name.watch.json" 2> "$dir/$name.watch.err" &
  local watch=$!
  pids+=("$watch")
  sleep 0.3
  bash -c "$rx" &
  local rxpid=$!
  # The receiver listening (a loaded host can take longer than a fixed pause to start it).
  for _ in $(seq 100); do
    [ -n "$(ip netns exec ackstall-b ss -Hltn 'sport = :5001' 2>/dev/null)" ] && break
    sleep 0.05
  done
  sleep 0.1
  bash -c "$tx" > /dev/null 2> "$dir/$name.tx.err" || fail "$name: the sender failed: $(cat "$dir/$name.tx.err")"
  wait "$rxpid" || true
  sleep 0.2
  kill -INT "$watch"; wait "$watch" 2>/dev/null || true
  kill -INT "$cap"; wait "$cap" 2>/dev/null || true
  pids=()
  "$ackstall" lab down >/dev/null
  "$ackstall" scan --json "$dir/$name.pcapng" > "$dir/$name.scan.json"
  python3 - "$name" "$dir/$name.scan.json" "$dir/$name.watch.json" <<'PY' || return 1
import json, sys
name, scan_path, watch_path = sys.argv[1:]
scan = json.load(open(scan_path))
dirs = [d for f in scan["flows"] for d in f["directions"] if d["sender"].startswith("10.77.0.1:")]
d = max(dirs, key=lambda d: d["bytes_sent"])
g = d["diagnosis"]
s_cause = g["problem"] or g["dominant"]
s_secs = {a["cause"]: a["seconds"] for a in g["accounts"]}
rows = [json.loads(l) for l in open(watch_path) if l.startswith("{")]
stalls = [r for r in rows if r.get("event") == "stall"]
mine = [r for r in rows if r.get("summary") and r["role"] == "sender" and r["local"] == d["sender"]]
if not mine:
    sys.exit(f"{name}: watch saw no sender {d['sender']}")
w = mine[0]
w_cause = w["problem"] or w["dominant"]
w_secs = {a["cause"]: a["seconds"] for a in w["accounts"]}
s_t, w_t = s_secs.get(s_cause, 0.0), w_secs.get(s_cause, 0.0)
diff = abs(w_t - s_t) / s_t if s_t > 0 else float("inf")
print(f"  scan accounts {s_secs}\n  watch accounts {w_secs}\n  watch --events: {len(stalls)} stalls"
      + (f", e.g. {stalls[0]['send_length']}-byte send, ACK after {stalls[0]['wait_ms']} ms" if stalls else ""))
s_share, w_share = s_t / d["duration_s"], w_t / w["interval_s"]
print(f"{name:16} scan {s_cause} {s_t:.3f} s of {d['duration_s']:.3f} s ({100 * s_share:.1f} %) | watch {w_cause} "
      f"{w_t:.3f} s of {w['interval_s']:.3f} s ({100 * w_share:.1f} %) | shares {100 * abs(w_share - s_share):.1f} "
      f"points apart, times {100 * diff:.1f} %")
# The figure compared: the time each gives the cause, within 10 % of scan's (issue 39). (The
# shares differ more in the idle ends: scan times the transfer from the capture's first to last
# segment, watch over the sampled intervals the socket lived through.)
ok = s_cause == w_cause and diff <= 0.10
# watch --events shows each delayed-ACK stall with the send behind it: the writes these transfers make.
send = {"quota-delack": 15928, "nagle-delack": 300}.get(name)
if send is not None:
    held = [x for x in stalls if x["cause"] == "delayed_ack"]
    # Most, not all: a write the kernel took in two sendmsg calls shows as two shorter sends.
    if len(held) < 3 or 5 * sum(x["send_length"] == send for x in held) < 4 * len(held):
        print(f"{name}: expected delayed-ACK stalls after {send}-byte sends, got {[x['send_length'] for x in held]}")
        ok = False
sys.exit(0 if ok else 1)
PY
}
rxs="ip netns exec ackstall-b $ackstall ttcp -r -s --accept-timeout-ms 20000 >/dev/null 2>&1"
txs="ip netns exec ackstall-a $ackstall ttcp -t -s"
reqresp="python3 $src/bench/lab_reqresp.py"
cases=("${@:-receiver-window sender-buffer nagle-delack quota-delack loss app-limited}")
# run_case NAME: the transfer of that name (returns non-zero when watch and scan disagree).
run_case() {
  local c=$1
  case $c in
    # The transfers over the path's delay line (--rtt) are captured beside the sender, where watch
    # reads them: behind the delay line (a process of its own in ackstall-m) the receiver's capture
    # sees the line's scheduling under CPU load, which scan reads as the network's (docs/GUIDE.md
    # §4b); beside the sender it reads the same each run.
    receiver-window) run "$c" "--rtt 30ms" "ip netns exec ackstall-b $ackstall ttcp -r -s -b 16384 >/dev/null 2>&1" \
                       "$txs -l 65536 -n 20 10.77.0.2" a ;;
    # Sender buffer: scan classes a flow's whole flight time at once (the sender's buffer,
    # slow start included), watch each interval: slow start, the congestion window full, is the
    # network's (~0.1 s, 3 round trips); 40 writes make that 3-5 % of the transfer.
    sender-buffer) run "$c" "--rtt 30ms" "$rxs" "$txs -b 32768 -l 65536 -n 40 10.77.0.2" a ;;
    nagle-delack) run "$c" "" "ip netns exec ackstall-b $reqresp server 5001" \
                    "ip netns exec ackstall-a $reqresp client 10.77.0.2 5001 --requests 30 --request 600 --pieces 2" ;;
    quota-delack) run "$c" "" "ip netns exec ackstall-b $ackstall ttcp -r -s --ack-mode classic >/dev/null 2>&1" \
                    "$txs -l 15928 -n 20 --emulate-afd=8192 10.77.0.2" ;;
    # Loss: taken beside the sender, where watch reads it: a capture beside the receiver sees each
    # recovery a round trip shorter (the retransmission arrives half a round trip after it left,
    # the ACK that ends it leaves half a round trip before the sender has it: ~30 ms of a 30-160
    # ms recovery here). The receiver's buffer is fixed at 1 MiB (above the path's 375 KB
    # bandwidth-delay product, so the window never limits): with autotuning its window grows
    # during a recovery and scan counts each duplicate ACK that carries a larger window as a window
    # update (receiver_window; docs/GUIDE.md §4b).
    loss) run "$c" "--rtt 30ms --queue-bytes 20000" \
            "ip netns exec ackstall-b $ackstall ttcp -r -s -b 1048576 --accept-timeout-ms 20000 >/dev/null 2>&1" \
            "$txs -l 65536 -n 60 10.77.0.2" a ;;
    app-limited) run "$c" "" "$rxs" \
                   "for i in \$(seq 40); do head -c 2000 /dev/zero; sleep 0.05; done | ip netns exec ackstall-a $ackstall ttcp -t -l 2000 10.77.0.2" ;;
    *) fail "unknown case $c" ;;
  esac
}
# A disagreement is retried once on a fresh transfer, and fails only if that one disagrees too:
# the lab's delay line and the AFD emulator are processes, and on a host loaded past its CPUs
# (docs/GUIDE.md §4b) one of their late turns now and then changed scan's reading of
# a whole transfer (a spurious retransmission makes scan class all of a flow's flight time as the
# network's; a write more than 10 ms late after a held ACK is the application's).
for c in ${cases[*]}; do
  run_case "$c" || { echo "RETRIED: $c: watch and scan disagree (above); once more on a fresh transfer"; run_case "$c"; } ||
    fail "$c: watch and scan disagree twice (above)"
done
echo "ok: watch and scan agree on ${cases[*]}"
