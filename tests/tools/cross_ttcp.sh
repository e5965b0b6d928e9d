#!/usr/bin/env bash
# One ackstall ttcp transfer between the Linux tool and the Windows tool (under Wine) on
# loopback, checked byte for byte (--verify): a ctest of the MinGW build (tests/tools/CMakeLists.txt).
#
#   cross_ttcp.sh HOST_TOOL WIN_EXE win-to-linux|linux-to-win [pattern|stdio]
#
# The receiver picks a free port (-p 0) and prints it; both ends must exit 0. pattern (default):
# -s on both ends, and the receiver must have verified all of -n x -l. stdio: ttcp without -s,
# 3 MB of random bytes from the transmitter's stdin to the receiver's stdout (Windows' stdio in
# binary mode: no CR/LF translation), compared with cmp. Exit 77 (ctest: skipped) with a message when the host tool is not
# built. Wine comes from PATH with the caller's WINEPREFIX (scripts/test-windows.sh sets it).
set -euo pipefail
host=$1 exe=$2 direction=$3 data=${4:-pattern}
if [ ! -x "$host" ]; then
  echo "SKIPPED: no Linux ackstall at $host (build the release preset first)"
  exit 77
fi
wine=$(command -v wine || command -v wine64)
case $direction in
  win-to-linux) rx=("$host") tx=("$wine" "$exe") ;;
  linux-to-win) rx=("$wine" "$exe") tx=("$host") ;;
  *) echo "cross_ttcp.sh: direction must be win-to-linux or linux-to-win, not '$direction'" >&2; exit 2 ;;
esac
n=400 l=200000
tmp=$(mktemp -d)
log=$tmp/rx.log
rx_pid=""
cleanup() { [ -n "$rx_pid" ] && kill "$rx_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

if [ "$data" = stdio ]; then
  head -c 3000001 /dev/urandom >"$tmp/in.bin"
  "${rx[@]}" ttcp -r -p 0 --bind 127.0.0.1 --accept-timeout-ms 60000 >"$tmp/out.bin" 2>"$log" &
else
  "${rx[@]}" ttcp -r -s --verify -n $n -l $l -p 0 --bind 127.0.0.1 --accept-timeout-ms 60000 >"$log" 2>&1 &
fi
rx_pid=$!
port=""
for _ in $(seq 1 300); do  # Wine starts in a few seconds
  port=$(tr -d '\r' <"$log" | sed -n 's/^ttcp-r: .*port=\([0-9]*\).*/\1/p')
  [ -n "$port" ] && break
  kill -0 "$rx_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "FAILED: the receiver did not start:"; tr -d '\r' <"$log"; exit 1
fi
tx_rc=0
if [ "$data" = stdio ]; then
  timeout 120 "${tx[@]}" ttcp -t -l 65536 --chunk seed -b 131072 -p "$port" 127.0.0.1 \
    <"$tmp/in.bin" 2>&1 | tr -d '\r' || tx_rc=$?
else
  timeout 120 "${tx[@]}" ttcp -t -s --verify -n $n -l $l --chunk seed -b 131072 -v -p "$port" 127.0.0.1 \
    | tr -d '\r' || tx_rc=$?
fi
rx_rc=0
wait "$rx_pid" || rx_rc=$?
rx_pid=""
tr -d '\r' <"$log"
if [ "$tx_rc" -ne 0 ] || [ "$rx_rc" -ne 0 ]; then
  echo "FAILED: transmitter exit $tx_rc, receiver exit $rx_rc"; exit 1
fi
if [ "$data" = stdio ]; then
  cmp "$tmp/in.bin" "$tmp/out.bin" || { echo "FAILED: stdout differs from stdin"; exit 1; }
  echo "OK: $direction, stdin -> stdout, 3000001 bytes identical"
elif ! tr -d '\r' <"$log" | grep -q -- "--verify: $((n * l)) bytes match the pattern"; then
  echo "FAILED: the receiver did not verify $((n * l)) bytes"; exit 1
else
  echo "OK: $direction, $((n * l)) bytes verified"
fi
