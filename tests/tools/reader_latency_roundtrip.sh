#!/usr/bin/env bash
# bench/lab_reader_latency.py against known truth: the simulator's lab scenario with the pair's
# ACK left to the read (receiver.ack.ack_at_read) and a reader 30 us (then 60 us) late, captured
# on the receiver's side (`sim --pcap-at receiver`, as the lab's dumpcap) and analysed as a lab
# capture is (docs/STACKS.md §4). Checks: `read_us_percentiles` finds the 30 us; at arrival the
# pair's ACK leaves within a few us; with 10 x 1448 + 456-byte writes a 60 us reader takes the
# short tail into the last pair's ACK (`ack_patterns` "2-2-2-2-3"), which at arrival waits for the
# timer ("2-2-2-2-2-T1"); `at-read` does not count those reads as late.
# Skips (77) without tshark. Usage: reader_latency_roundtrip.sh ACKSTALL SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"
ackstall=$1 src=$2
require tshark "Debian package tshark"
require python3
private_dir reader
analyse() {  # NAME LEN [at-read]: NAME.pcap's fields through the lab's analysis into NAME[-at-read].json
  tshark -r "$dir/$1.pcap" -T fields -e frame.time_epoch -e ip.src -e tcp.seq -e tcp.len -e tcp.ack \
    -e tcp.stream 2>/dev/null | python3 "$src/bench/lab_reader_latency.py" 10.0.0.1 0 "$2" ${3:-} >"$dir/$1${3:+-$3}.json"
}
run() {  # NAME LEN READ_LATENCY AT_READ
  "$ackstall" sim "$src/examples/lab/pingpong-l8192.toml" --set app.transmitter.write_len="$2" \
    --set app.transmitter.writes=200 --set app.receiver.read_wakeup="$3" --set receiver.ack.ack_at_read="$4" \
    --pcap "$dir/$1.pcap" --pcap-at receiver >/dev/null
}
field() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$dir/$1.json" "$2"; }

run read 8192 30us true; analyse read 8192
run arrival 8192 30us false; analyse arrival 8192
p50=$(field read 'd["read_us_percentiles"][50]'); a50=$(field arrival 'd["read_us_percentiles"][50]')
python3 -c "import sys; sys.exit(not (30 <= $p50 < 40))" || fail "at the read, a pair's ACK p50 $p50 us, expected 30-40"
python3 -c "import sys; sys.exit(not ($a50 < 10))" || fail "at arrival, a pair's ACK p50 $a50 us, expected < 10"

len=$((10 * 1448 + 456))
run rescue $len 60us true; analyse rescue $len; analyse rescue $len at-read
run tail $len 60us false; analyse tail $len
[ "$(field rescue 'd["ack_patterns"].get("2-2-2-2-3", 0) >= 190')" = True ] || fail "no tail taken in at the read: $(field rescue 'd["ack_patterns"]')"
[ "$(field tail 'd["ack_patterns"].get("2-2-2-2-2-T1", 0) >= 190')" = True ] || fail "tail not alone at arrival: $(field tail 'd["ack_patterns"]')"
[ "$(field rescue 'd["late_reads"] >= 190')" = True ] || fail "three covered, three or more: $(field rescue 'd["late_reads"]')"
[ "$(field rescue-at-read 'd["late_reads"]')" = 0 ] || fail "at-read counts $(field rescue-at-read 'd["late_reads"]') on-time reads as late"
[ "$(field rescue 'd["shifted_writes"]["timer"] + d["shifted_writes"]["restored"]')" = 0 ] || fail "a tail taken in counted as a shift"
echo "OK: pair ACK at the read p50 $p50 us, at arrival $a50 us; the 60 us reader takes the tail in, at-read counts no late read"
