#!/usr/bin/env bash
# Compares performance figures with a recorded baseline (bench/perf_guard.sh's comparison logic,
# a script of its own so that bench/perf_compare_test.sh checks it without timing anything).
# Both files hold one figure a line, "MEASURE VALUE" (blank lines and lines starting with # are
# skipped); every VALUE is a ratio against a peer measured in the same run, higher is better
# (peer time / our time, or our throughput / the peer's), so the machine's speed cancels.
# Prints, per measure of the baseline: its recorded and current value and the change; then a line
#   WARNING: MEASURE dropped P % (recorded R, now C; more than the allowed T %)
# for each measure whose current value is below recorded * (1 - T/100). A measure measured now
# but absent from the baseline is listed as new; one in the baseline but not measured now (its
# peer is not installed) as not measured, without a warning.
# Usage: bench/perf_compare.sh BASELINE CURRENT [THRESHOLD_PERCENT, default 15]
# Exit: 0 no drop, 1 at least one WARNING, 2 bad input (one line naming what is wrong).
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: perf_compare.sh BASELINE CURRENT [THRESHOLD_PERCENT]" >&2; exit 2; }
baseline=$1 current=$2 threshold=${3:-15}
[[ $threshold =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v t="$threshold" 'BEGIN { exit !(t > 0 && t < 100) }' ||
  { echo "perf_compare: threshold '$threshold' is not a percentage in (0, 100)" >&2; exit 2; }
for f in "$baseline" "$current"; do
  [ -r "$f" ] || { echo "perf_compare: cannot read $f" >&2; exit 2; }
done

awk -v t="$threshold" -v bname="$baseline" -v cname="$current" '
  function bad(msg) { printf "perf_compare: %s\n", msg > "/dev/stderr"; failed = 1; exit 2 }
  /^[ \t]*(#|$)/ { next }
  {
    where = (phase == 1 ? bname : cname) ":" FNR
    if (NF != 2) bad(where ": expected \"MEASURE VALUE\", got \"" $0 "\"")
    if ($2 !~ /^[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$/ || $2 + 0 <= 0)
      bad(where ": value \"" $2 "\" of " $1 " is not a positive number")
    if (phase == 1) {
      if ($1 in rec) bad(where ": " $1 " recorded twice")
      rec[$1] = $2; order[++n] = $1
    } else {
      if ($1 in cur) bad(where ": " $1 " measured twice")
      cur[$1] = $2; corder[++m] = $1
    }
  }
  END {
    if (failed) exit 2
    if (n == 0) bad(bname ": no figures recorded")
    printf "%-24s %10s %10s %9s\n", "measure", "recorded", "current", "change"
    for (i = 1; i <= n; i++) {
      k = order[i]
      if (!(k in cur)) { printf "%-24s %10.2f %10s %9s\n", k, rec[k], "-", "not measured"; continue }
      change = (cur[k] / rec[k] - 1) * 100
      printf "%-24s %10.2f %10.2f %+8.1f%%\n", k, rec[k], cur[k], change
      if (cur[k] < rec[k] * (1 - t / 100)) warn[++w] = sprintf("WARNING: %s dropped %.1f %% (recorded %.2f, now %.2f; more than the allowed %g %%)", k, -change, rec[k], cur[k], t)
    }
    for (i = 1; i <= m; i++) if (!(corder[i] in rec)) printf "%-24s %10s %10.2f %9s\n", corder[i], "-", cur[corder[i]], "new"
    for (i = 1; i <= w; i++) print warn[i]
    exit w > 0 ? 1 : 0
  }' phase=1 "$baseline" phase=2 "$current"
