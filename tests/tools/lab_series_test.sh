#!/usr/bin/env bash
# bench/lab_series.py on two hand-made tables (the format bench/lab_vs_sim.sh TABLE_JSON writes):
# pooled medians over the series' runs and seeds, the bounds, the per-series count, and one-line
# errors with exit 1 on tables that cannot be pooled. Usage: lab_series_test.sh SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"
src=$1
require python3
private_dir series
table() {  # FILE LAB_STALLS SIM_STALLS [READER_MODEL]: one cell, classic 8192 unpatched, 3 runs
  cat >"$1" <<JSON
{"lab_dir": "x", "runs": 3, "seconds": 5.0, "sim_runs": 2,
 "model": {"READER_JITTER": "same-run", "READER_MODEL": "${4:-late}", "READER_RUNS": "per-run", "LINK_JITTER": "none", "ACK_AT_READ": "off"},
 "cells": [{"receiver": "classic", "len": 8192, "case": "unpatched", "lab_mb_s": [10.0, 11.0, 12.0], "lab_stalls_per_s": $2,
            "sim_mb_s": [11.0, 11.0], "sim_stalls_per_s": $3}]}
JSON
}
# Series 1: lab 1.0 (median of 0.8, 1.0, 3.0), sim 1.0; series 2: lab 3.0 (2.8, 3.0, 3.2), sim 1.0.
# Pooled lab runs 0.8 1.0 2.8 3.0 3.0 3.2 -> median 2.9; pooled sim 1.0 x 4 -> 1.0: 2.90x, a miss,
# while series 1 alone is within (1 of 2).
table "$dir/a.json" "[0.8, 1.0, 3.0]" "[1.0, 1.0]"
table "$dir/b.json" "[2.8, 3.0, 3.2]" "[1.0, 1.0]"
out=$(python3 "$src/bench/lab_series.py" "$dir/a.json" "$dir/b.json")
echo "$out"
grep -q '^| classic | 8192 | unpatched | 2 | 11.00 | 2.9 (' <<<"$out" || fail "pooled lab figures"
grep -q '| 11.00 | 1.0 | +0.0 % | 2.90x | NO | 1 of 2 |$' <<<"$out" || fail "pooled sim figures, bounds or series count"
grep -q '^# all pooled cells within bounds: no$' <<<"$out" || fail "verdict"
# Within: sim 2.5 in both series against the pooled 2.9.
table "$dir/c.json" "[0.8, 1.0, 3.0]" "[2.5, 2.5]"
table "$dir/d.json" "[2.8, 3.0, 3.2]" "[2.5, 2.5]"
out=$(python3 "$src/bench/lab_series.py" "$dir/c.json" "$dir/d.json")
grep -q '| 1.16x | yes | 1 of 2 |$' <<<"$out" || fail "1.16x within: $out"
# Bad input: one line, exit 1.
expect_error() {  # PATTERN ARGS...
  local pat=$1; shift
  if err=$(python3 "$src/bench/lab_series.py" "$@" 2>&1 >/dev/null); then rc=0; else rc=$?; fi
  [ "$rc" = 1 ] || fail "exit $rc for $*"
  [ "$(wc -l <<<"$err")" = 1 ] && grep -q "$pat" <<<"$err" || fail "error '$err' for $*"
}
table "$dir/e.json" "[1.0, 1.0, 1.0]" "[1.0, 1.0]" quantiles
expect_error "other settings" "$dir/a.json" "$dir/e.json"
echo '{"cells": 3}' >"$dir/f.json"; expect_error "not a table" "$dir/f.json"
echo 'not json' >"$dir/g.json"; expect_error "g.json" "$dir/g.json"
expect_error "No such file" "$dir/none.json"
expect_error "usage"
echo "PASS"
