#!/usr/bin/env bash
# The labelled capture corpus of `ackstall scan`'s causes (docs/SCAN.md "Labelled captures"): one
# real Linux transfer in the namespace lab per known cause, captured with dumpcap at the
# receiver's veth (pcapng, 96-byte snaplen), and the cause it must be found to have:
#   line          bulk 64 KiB writes at 100 Mbit/s                      -> dominant network, healthy
#   local-drops   the same through a 3000-byte shaper queue: tbf drops at the sender's own qdisc,
#                 which Linux resends before any copy reaches the wire, so the receiver sees no
#                 loss, only a congestion window cut to odd flights whose last segment waits for
#                 its delayed ACK                                         -> problem delayed_ack
#   quota-delack  15928-byte writes over an emulated 8 KiB Winsock quota to a classic receiver
#                                                                        -> problem delayed_ack
#   app-limited   2000-byte writes fed from a pipe every 50 ms           -> dominant sender_app
#   zero-window   a receiver whose reader stops for 2 s (4 KiB SO_RCVBUF) -> problem receiver_window
#   receiver-window  bulk over a 30 ms path (lab up --rtt 30ms) to a receiver with a 16 KiB
#                 SO_RCVBUF: the window, not the path, sets the pace      -> problem receiver_window
#   sender-buffer bulk over the 30 ms path from a sender with a 32 KiB SO_SNDBUF
#                                                                        -> problem send_buffer
#   loss          bulk over the 30 ms path through a 20000-byte shaper queue behind the delay line:
#                 drops on the path, recovered by retransmission            -> problem loss
#   nagle-delack  request/response (bench/lab_reqresp.py) whose 600-byte requests are written in
#                 two pieces: Nagle holds the second behind the receiver's delayed ACK
#                                                                        -> problem delayed_ack, fix TCP_NODELAY
#   reqresp-30ms  request/response with TCP_NODELAY over the 30 ms path: each turn takes one
#                 round trip, which is the path and no stall              -> healthy
#   gaps          `line` with 20 records deleted (editcap)               -> a capture warning
# Every capture is taken at the receiver's veth (ackstall-vb), beside the receiver: on the 30 ms
# path the scanner sees the handshake's round trip whole and ACKs at once after data.
# The expectations are written to OUT_DIR/manifest.json beside the captures; the test
# ScanCauses.EveryLabelledCaptureGetsItsCause checks them on the committed copy.
# Usage (root; Debian: wireshark-common for dumpcap and editcap):
#   bench/scan_cause_corpus.sh [path/to/ackstall] [OUT_DIR]
# With OUT_DIR = tests/data/cause-captures it re-records the committed corpus.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
out=${2:-$(mktemp -d)}
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 0; }
command -v dumpcap >/dev/null && command -v editcap >/dev/null || { echo "SKIP: dumpcap/editcap not installed"; exit 0; }
mkdir -p "$out"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$ackstall" lab down >/dev/null 2>&1 || true
}
trap cleanup EXIT
wait_for_file() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }
A=(ip netns exec ackstall-a "$ackstall")
B=(ip netns exec ackstall-b "$ackstall")

# record NAME "LAB_UP_ARGS" "RECEIVER_PIPELINE" "SENDER_PIPELINE"  (pipelines: bash, $A/$B expanded)
record() {
  local name=$1 up=$2 rx=$3 tx=$4
  # shellcheck disable=SC2086
  "$ackstall" lab up $up >/dev/null
  rm -f "$out/$name.pcapng"
  ip netns exec ackstall-b dumpcap -q -i ackstall-vb -s 96 -f 'tcp port 5001' -w "$out/$name.pcapng" 2>/dev/null &
  pids=($!)
  wait_for_file "$out/$name.pcapng"
  sleep 0.5
  bash -c "$rx" &
  local rxpid=$!
  sleep 0.3
  bash -c "$tx" >/dev/null
  wait "$rxpid" || true
  sleep 0.3
  kill -INT "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
  pids=()
  "$ackstall" lab down >/dev/null
  echo "$name: $("$ackstall" scan "$out/$name.pcapng" | grep -m1 'verdict' | cut -c1-150)"
}
rxs="ip netns exec ackstall-b $ackstall ttcp -r -s --accept-timeout-ms 20000 >/dev/null 2>&1"
txs="ip netns exec ackstall-a $ackstall ttcp -t -s"
record line "" "$rxs" "$txs -l 65536 -n 30 10.77.0.2"
record local-drops "--queue-bytes 3000" "$rxs" "$txs -l 65536 -n 10 10.77.0.2"
record quota-delack "" "ip netns exec ackstall-b $ackstall ttcp -r -s --ack-mode classic >/dev/null 2>&1" \
  "$txs -l 15928 -n 20 --emulate-afd=8192 10.77.0.2"
record app-limited "" "$rxs" \
  "for i in \$(seq 40); do head -c 2000 /dev/zero; sleep 0.05; done | ip netns exec ackstall-a $ackstall ttcp -t -l 2000 10.77.0.2"
record zero-window "" "ip netns exec ackstall-b $ackstall ttcp -r -b 4096 | (sleep 2; cat > /dev/null)" \
  "$txs -l 8192 -n 100 10.77.0.2"
record receiver-window "--rtt 30ms" "ip netns exec ackstall-b $ackstall ttcp -r -s -b 16384 >/dev/null 2>&1" \
  "$txs -l 65536 -n 20 10.77.0.2"
record sender-buffer "--rtt 30ms" "$rxs" "$txs -b 32768 -l 65536 -n 20 10.77.0.2"
record loss "--rtt 30ms --queue-bytes 20000" "$rxs" "$txs -l 65536 -n 60 10.77.0.2"
reqresp="python3 $src/bench/lab_reqresp.py"
record nagle-delack "" "ip netns exec ackstall-b $reqresp server 5001" \
  "ip netns exec ackstall-a $reqresp client 10.77.0.2 5001 --requests 30 --request 600 --pieces 2"
record reqresp-30ms "--rtt 30ms" "ip netns exec ackstall-b $reqresp server 5001 --reply 2000" \
  "ip netns exec ackstall-a $reqresp client 10.77.0.2 5001 --requests 20 --request 300 --reply 2000 --nodelay"
editcap "$out/line.pcapng" "$out/gaps.pcapng" 100-109 300-309 2>/dev/null
echo "gaps: $("$ackstall" scan "$out/gaps.pcapng" | grep -m1 'warning' | cut -c1-150)"
cat > "$out/manifest.json" <<'JSON'
{
 "line": {"dominant": "network", "problem": null},
 "local-drops": {"problem": "delayed_ack"},
 "quota-delack": {"dominant": "delayed_ack", "problem": "delayed_ack", "fix_contains": "TCP_QUICKACK"},
 "app-limited": {"dominant": "sender_app", "problem": null},
 "zero-window": {"problem": "receiver_window", "zero_window_acks": true, "fix_contains": "read sooner"},
 "receiver-window": {"dominant": "receiver_window", "problem": "receiver_window", "fix_contains": "SO_RCVBUF"},
 "sender-buffer": {"dominant": "send_buffer", "problem": "send_buffer", "fix_contains": "larger send buffer"},
 "loss": {"problem": "loss"},
 "nagle-delack": {"dominant": "delayed_ack", "problem": "delayed_ack", "fix_contains": "TCP_NODELAY"},
 "reqresp-30ms": {"problem": null},
 "gaps": {"capture_warning": true}
}
JSON
echo "# corpus in $out: $(du -ch "$out"/*.pcapng | tail -n 1 | cut -f1) of pcapng"
