# shellcheck shell=bash disable=SC2154  # $tmp: the sourcing script's scratch directory
# Helpers sourced by bench/perf_guard.sh and bench/scaling.sh (bash; needs $tmp, a scratch dir).

# The median of the numbers on stdin, one a line (the lower middle one for an even count).
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# Wall seconds (from date's nanoseconds: time(1)'s %e has 10 ms steps), peak RSS in KiB and CPU
# seconds, user + system (/usr/bin/time's %M, %U + %S: 10 ms steps) of a command, its output
# discarded: prints "SECONDS KIB CPU_SECONDS". On a shared machine the wall includes the time the
# command waited for a core; the CPU time does not. A failing command is an error (the bench
# would time an error message).
measure() {
  local t0 t1
  t0=$(date +%s%N)
  if ! /usr/bin/time -f "%M %U %S" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/stderr"; then
    echo "bench: failed: $* ($(tail -n 1 "$tmp/stderr"))" >&2
    return 1
  fi
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000 ))" "$(tail -n 1 "$tmp/time")" | awk '{ printf "%.6f %s %.2f\n", $1 / 1e6, $2, $3 + $4 }'
}
