#!/usr/bin/env bash
# No impossible figure (bench/scan_invariants.py) on every capture the project has: the lab corpus
# (tests/data/lab-captures), the labelled cause corpus (tests/data/cause-captures), and simulator captures of every seed and lab example, each at the
# wire tap and at the receiver.
# Usage: scan_invariants.sh ACKSTALL SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"
require python3
ackstall=$1 src=$2
private_dir scan-invariants
n=0
for c in "$src"/tests/data/lab-captures/*.pcapng "$src"/tests/data/cause-captures/*.pcapng; do
  "$ackstall" scan --json "$c" > "$dir/$n.json"; n=$((n + 1))
done
for s in "$src"/examples/seed/0[1-7]*.toml "$src"/examples/lab/*.toml; do
  for at in wire receiver; do
    "$ackstall" sim "$s" --set app.transmitter.writes=40 --pcap "$dir/sim.pcap" --pcap-at "$at" > /dev/null
    "$ackstall" scan --json "$dir/sim.pcap" > "$dir/$n.json"; n=$((n + 1))
  done
done
python3 "$src/bench/scan_invariants.py" "$dir"/*.json || fail "impossible figures above"
