#!/usr/bin/env bash
# Test of bench/perf_compare.sh (perf_guard.sh's comparison; no timing): recorded figures against
# current ones with one measure slowed down by 20 % (warned, by name), one by 10 % (within the
# 15 % allowed: no warning) and one faster; then no slowdown at all, a custom threshold, a
# measure not measured now, and bad input (one line naming the problem, exit 2).
# Usage: bench/perf_compare_test.sh path/to/perf_compare.sh
set -euo pipefail
compare=${1:?usage: perf_compare_test.sh path/to/perf_compare.sh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out"; exit 1; }
run() { set +e; "$compare" "$@" > "$tmp/out" 2>&1; rc=$?; set -e; }

cat > "$tmp/recorded" <<'EOF'
# recorded figures
sim_vs_ns3 40.0
scan_text_pcap 50.0

scan_json_pcapng 30.0
ttcp_vs_iperf3_8192 1.00
EOF
# Injected slowdown: scan_text_pcap 20 % slower; sim_vs_ns3 10 % (allowed); ttcp faster.
cat > "$tmp/slow" <<'EOF'
sim_vs_ns3 36.0
scan_text_pcap 40.0
scan_json_pcapng 30.0
ttcp_vs_iperf3_8192 1.20
EOF
run "$tmp/recorded" "$tmp/slow"
[ "$rc" = 1 ] || fail "exit status $rc with a slowdown, expected 1"
[ "$(grep -c '^WARNING' "$tmp/out")" = 1 ] || fail "expected exactly one WARNING line"
grep -q '^WARNING: scan_text_pcap dropped 20.0 % (recorded 50.00, now 40.00' "$tmp/out" ||
  fail "the WARNING does not name scan_text_pcap and its drop"
grep -Eq '^sim_vs_ns3 +40.00 +36.00 +-10.0%$' "$tmp/out" || fail "sim_vs_ns3's row (recorded, current, change)"
grep -Eq '^ttcp_vs_iperf3_8192 +1.00 +1.20 +\+20.0%$' "$tmp/out" || fail "ttcp's row"

# The same figures: no warning, exit 0.
run "$tmp/recorded" "$tmp/recorded"
[ "$rc" = 0 ] || fail "exit status $rc without a slowdown"
! grep -q WARNING "$tmp/out" || fail "a WARNING without a slowdown"

# A 5 % threshold also flags the 10 % drop of sim_vs_ns3.
run "$tmp/recorded" "$tmp/slow" 5
[ "$(grep -c '^WARNING' "$tmp/out")" = 2 ] && grep -q '^WARNING: sim_vs_ns3 dropped 10.0 %' "$tmp/out" ||
  fail "threshold 5: expected warnings for sim_vs_ns3 and scan_text_pcap"

# A measure not measured now (its peer missing) and a new one: listed, no warning.
printf 'sim_vs_ns3 41\nscan_vs_new 3\n' > "$tmp/partial"
run "$tmp/recorded" "$tmp/partial"
[ "$rc" = 0 ] || fail "exit status $rc with measures missing"
grep -Eq '^scan_text_pcap .* not measured$' "$tmp/out" || fail "the missing measure is not listed"
grep -Eq '^scan_vs_new .* new$' "$tmp/out" || fail "the new measure is not listed"

# Bad input: one line naming the problem, exit 2.
printf 'sim_vs_ns3 fast\n' > "$tmp/bad"
run "$tmp/recorded" "$tmp/bad"
[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/out")" = 1 ] && grep -q 'value "fast" of sim_vs_ns3' "$tmp/out" ||
  fail "a non-numeric value: expected one line naming it, exit 2 (got $rc)"
run "$tmp/recorded" "$tmp/missing-file"
[ "$rc" = 2 ] && grep -q 'cannot read .*missing-file' "$tmp/out" || fail "a missing file (got $rc)"
run "$tmp/recorded" "$tmp/slow" 150
[ "$rc" = 2 ] && grep -q "threshold '150'" "$tmp/out" || fail "threshold 150 (got $rc)"
echo "perf_compare: flags an injected 20 % slowdown by name; quiet within the threshold; bad input rejected"
