#!/usr/bin/env bash
# One ackstall ttcp transfer between the Linux tool and the Windows tool (under Wine) on
# loopback, checked byte for byte (--verify): a ctest of the MinGW build (tests/tools/CMakeLists.txt).
#
#   cross_ttcp.sh HOST_TOOL WIN_EXE win-to-linux|linux-to-win
#
# The receiver picks a free port (-p 0) and prints it; both ends must exit 0 and the receiver must
# have verified all of -n x -l. Exit 77 (ctest: skipped) with a message when the host tool is not
# built. Wine comes from PATH with the caller's WINEPREFIX (scripts/test-windows.sh sets it).
set -euo pipefail
host=$1 exe=$2 direction=$3
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
log=$(mktemp)
rx_pid=""
cleanup() { [ -n "$rx_pid" ] && kill "$rx_pid" 2>/dev/null; rm -f "$log"; }
trap cleanup EXIT

"${rx[@]}" ttcp -r -s --verify -n $n -l $l -p 0 --bind 127.0.0.1 --accept-timeout-ms 60000 >"$log" 2>&1 &
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
timeout 120 "${tx[@]}" ttcp -t -s --verify -n $n -l $l --chunk seed -b 131072 -v -p "$port" 127.0.0.1 \
  | tr -d '\r' || tx_rc=$?
rx_rc=0
wait "$rx_pid" || rx_rc=$?
rx_pid=""
tr -d '\r' <"$log"
if [ "$tx_rc" -ne 0 ] || [ "$rx_rc" -ne 0 ]; then
  echo "FAILED: transmitter exit $tx_rc, receiver exit $rx_rc"; exit 1
fi
if ! tr -d '\r' <"$log" | grep -q -- "--verify: $((n * l)) bytes match the pattern"; then
  echo "FAILED: the receiver did not verify $((n * l)) bytes"; exit 1
fi
echo "OK: $direction, $((n * l)) bytes verified"
