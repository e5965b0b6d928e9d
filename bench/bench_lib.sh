# shellcheck shell=bash disable=SC2154  # $tmp: the sourcing script's scratch directory
# Helpers sourced by bench/perf_guard.sh and bench/scaling.sh (bash; needs $tmp, a scratch dir).

# The median of the numbers on stdin, one a line (the lower middle one for an even count).
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# Wall seconds (from date's nanoseconds: time(1)'s %e has 10 ms steps), peak RSS in KiB
# (/usr/bin/time's %M) and CPU seconds, user + system, of a command (bash's `times` for the
# subshell's children: 1 ms steps, where time(1)'s %U and %S have 10 ms), its output discarded:
# prints "SECONDS KIB CPU_SECONDS". On a shared machine the wall includes the time the command
# waited for a core; the CPU time does not. A failing command is an error (the bench would time
# an error message).
measure() {
  local t0 t1
  t0=$(date +%s%N)
  if ! ( /usr/bin/time -f "%M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/stderr" && times > "$tmp/times" ); then
    echo "bench: failed: $* ($(tail -n 1 "$tmp/stderr"))" >&2
    return 1
  fi
  t1=$(date +%s%N)
  # times: the shell's own user/system, then its children's ("0m1.234s 0m0.056s").
  echo "$(( (t1 - t0) / 1000 )) $(tail -n 1 "$tmp/time") $(sed -n 2p "$tmp/times")" |
    awk '{ split($3, u, /[ms]/); split($4, y, /[ms]/)
           printf "%.6f %s %.3f\n", $1 / 1e6, $2, u[1] * 60 + u[2] + y[1] * 60 + y[2] }'
}
