#!/usr/bin/env bash
# watch --events leaves nothing in the kernel (issue 39): its tracefs instance, with its enabled
# tracepoints, is gone after Ctrl-C (exit 130, the summary printed), and after a SIGKILLed run the
# next run finds the stale instance and removes it. Root only (tracefs); skipped otherwise.
# Usage: watch_events_cleanup.sh ACKSTALL
source "$(dirname "$0")/script_test_lib.sh"
ackstall=$1
[ "$(id -u)" = 0 ] || { echo "SKIP: watch --events needs root (tracefs)"; exit 77; }
private_dir watch-events
root=/sys/kernel/tracing
[ -d "$root/instances" ] || root=/sys/kernel/debug/tracing
port=$((20000 + RANDOM % 20000))
# Runs left behind on a failure (the wait below, or ctest's timeout) are killed with the
# directory: no root `watch` keeps its instance's tracepoints on. The runs that are to end by a
# signal have a --duration too, so that even a killed script leaves nothing for long.
running=()
trap 'for p in "${running[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; rm -rf "$dir"' EXIT

# Waits for PID's instance to exist with tcp_probe enabled. A tracefs instance is a ring buffer
# per CPU and a directory per event, slow to make on a loaded machine (docs/GUIDE.md "Tests that
# wait on real processes"), so the wait is long (40 s by the clock) and ends early if the run has
# exited.
wait_instance() {
  local until=$((SECONDS + 40))
  while [ "$SECONDS" -lt "$until" ]; do
    [ "$(cat "$root/instances/ackstall-watch-$1/events/tcp/tcp_probe/enable" 2>/dev/null)" = 1 ] && return 0
    kill -0 "$1" 2>/dev/null || fail "watch --events (pid $1) exited before its instance was up: $(cat "$dir/err")"
    sleep 0.05
  done
  fail "no instance ackstall-watch-$1 with tcp_probe enabled after 40 s: $(cat "$dir/err")"
}

# 1. Ctrl-C: 130, the summary, no instance left.
"$ackstall" watch --events --port "$port" --interval 50ms --duration 300s > "$dir/out" 2> "$dir/err" &
pid=$!
running+=("$pid")
wait_instance "$pid"
root=$(cd "$root" && pwd)  # mounted by the first run if it was not
kill -INT "$pid"
code=0; wait "$pid" || code=$?
[ "$code" -eq 130 ] || fail "SIGINT: exit $code, expected 130: $(cat "$dir/err")"
grep -q '^summary:' "$dir/out" || fail "SIGINT: no summary"
grep -q '^events: ' "$dir/out" || fail "SIGINT: no event counts"
[ ! -e "$root/instances/ackstall-watch-$pid" ] || fail "SIGINT: instance ackstall-watch-$pid left behind"

# 2. SIGKILL: the instance stays (nothing runs to remove it); the next run removes it, and its own.
"$ackstall" watch --events --port "$port" --interval 50ms --duration 300s > "$dir/out2" 2> "$dir/err" &
killed=$!
running+=("$killed")
wait_instance "$killed"
kill -KILL "$killed"
wait "$killed" || true
[ -d "$root/instances/ackstall-watch-$killed" ] || fail "SIGKILL: the instance is already gone (test proves nothing)"
"$ackstall" watch --events --port "$port" --duration 100ms > "$dir/out3" 2> "$dir/err3" &
next=$!
code=0; wait "$next" || code=$?
[ "$code" -eq 0 ] || fail "next run: exit $code: $(cat "$dir/err3")"
grep -q "removed the tracefs instance ackstall-watch-$killed of a run that was killed" "$dir/err3" ||
  fail "next run did not report removing the stale instance: $(cat "$dir/err3")"
[ ! -e "$root/instances/ackstall-watch-$killed" ] || fail "stale instance ackstall-watch-$killed left behind"
[ ! -e "$root/instances/ackstall-watch-$next" ] || fail "instance ackstall-watch-$next left behind"
echo "ok: no instance after Ctrl-C, stale instance of a SIGKILLed run removed by the next"
