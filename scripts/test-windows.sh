#!/usr/bin/env bash
# Third stage of scripts/test.sh: the Windows build, tested under Wine.
#
# Cross-compiles core + net, their tests, the ackstall tool (plan, probe, ttcp: sim, scan and lab
# are host-only) with its tests, and bench/wait_teardown_bench with MinGW-w64
# (cmake/toolchains/mingw-w64-x86_64.cmake), warnings as errors, the simulator off; then runs
# under Wine, headless:
#   * the unit tests (ctest, through CMAKE_CROSSCOMPILING_EMULATOR), among them the loopback
#     transfer through Wine's Winsock (net_loopback_test: ChunkedSender -> recv in two threads,
#     stream hash compared byte for byte) and ttcp_test (both ends of ackstall ttcp in one
#     Windows process);
#   * ackstall.exe ttcp -t under Wine against the Linux `ackstall ttcp -r` on loopback, and the
#     other way round, both with --verify (byte for byte) — the host tool from the release build
#     (ACKSTALL_HOST_TOOL; skipped with a message if it is not built);
#   * the wait_readable teardown benchmark (short run).
#
# Skipped with a visible message where MinGW-w64 or Wine is missing (scripts/deps.sh test
# installs both). The Wine prefix is created once under the build directory (wineboot -i:
# measured ~18 s) and reused. Runtime bounded: every Wine run has a timeout.
#
# Environment: ACKSTALL_WIN_BUILD_DIR (default build/mingw), ACKSTALL_WIN_LOOPBACK_BYTES
# (default 64 MiB per mode; the host build moves 1 GiB per mode), ACKSTALL_HOST_TOOL (default
# build/release/tools/ackstall/ackstall).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=${ACKSTALL_WIN_BUILD_DIR:-$src/build/mingw}
t_start=$(date +%s)

cxx=$(command -v x86_64-w64-mingw32-g++-posix || true)
wine=$(command -v wine || command -v wine64 || true)
if [ -z "$cxx" ] || [ -z "$wine" ]; then
  echo "=== windows: SKIPPED — needs MinGW-w64 (g++-mingw-w64-x86-64-posix) and Wine (wine)" \
       "— found: ${cxx:-no MinGW g++}, ${wine:-no wine}; install with scripts/deps.sh test"
  exit 0
fi

echo "=== windows: configure + build (MinGW-w64, $build)"
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/mingw-w64-x86_64.cmake" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACKSTALL_WERROR=ON -DACKSTALL_BUILD_SIM=OFF \
  -DACKSTALL_BUILD_TOOLS=ON -DACKSTALL_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j2

export WINEPREFIX=$build/wineprefix WINEDEBUG=-all WINEARCH=win64
export WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono / Gecko installer prompts
unset DISPLAY                              # headless
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "=== windows: creating the Wine prefix $WINEPREFIX (once)"
  t0=$(date +%s)
  timeout 300 "$wine" wineboot -i >/dev/null 2>&1
  echo "    wineboot -i: $(( $(date +%s) - t0 )) s"
fi
stop_wineserver() { wineserver -k >/dev/null 2>&1 || true; }  # this prefix's server only
trap stop_wineserver EXIT

echo "=== windows: unit tests and loopback transfer under Wine"
ACKSTALL_LOOPBACK_BYTES=${ACKSTALL_WIN_LOOPBACK_BYTES:-67108864} \
  ctest --test-dir "$build" --output-on-failure --timeout 300 -j1

# One ttcp transfer between a Linux and a Windows (Wine) ackstall on loopback: the receiver
# picks a free port (-p 0) and prints it; both must exit 0 and the receiver must have verified
# every byte of -n x -l.
cross_ttcp() {  # cross_ttcp RX-COMMAND TX-COMMAND (each a string: "wine .../ackstall.exe" or host path)
  local rx=$1 tx=$2 n=400 l=200000 log=$build/cross-ttcp-rx.log port="" i
  shift 2
  $rx ttcp -r -s --verify -n $n -l $l -p 0 --bind 127.0.0.1 --accept-timeout-ms 60000 \
    >"$log" 2>&1 &
  local rx_pid=$!
  for i in $(seq 1 300); do  # Wine's start-up takes a few seconds
    port=$(tr -d '\r' <"$log" | sed -n 's/^ttcp-r: .*port=\([0-9]*\).*/\1/p')
    [ -n "$port" ] && break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    kill "$rx_pid" 2>/dev/null || true
    echo "receiver did not start:"; cat "$log"; return 1
  fi
  local tx_rc=0 rx_rc=0
  timeout 120 $tx ttcp -t -s --verify -n $n -l $l --chunk seed -b 131072 -v -p "$port" 127.0.0.1 \
    | tr -d '\r' | sed 's/^/    /' || tx_rc=$?
  wait "$rx_pid" || rx_rc=$?
  tr -d '\r' <"$log" | sed 's/^/    /'
  if [ "$tx_rc" -ne 0 ] || [ "$rx_rc" -ne 0 ] ||
     ! tr -d '\r' <"$log" | grep -q -- "--verify: $((n * l)) bytes match the pattern"; then
    echo "cross ttcp FAILED (transmitter exit $tx_rc, receiver exit $rx_rc)"; return 1
  fi
}

host_tool=${ACKSTALL_HOST_TOOL:-$src/build/release/tools/ackstall/ackstall}
win_tool="$wine $build/tools/ackstall/ackstall.exe"
if [ -x "$host_tool" ]; then
  echo "=== windows: ackstall.exe ttcp -t (Wine) -> Linux ackstall ttcp -r, loopback, --verify"
  cross_ttcp "$host_tool" "$win_tool"
  echo "=== windows: Linux ackstall ttcp -t -> ackstall.exe ttcp -r (Wine), loopback, --verify"
  cross_ttcp "$win_tool" "$host_tool"
else
  echo "=== windows: cross ttcp SKIPPED — no host tool at $host_tool (build the release preset)"
fi

if [ -f "$build/bench/wait_teardown_bench.exe" ]; then
  echo "=== windows: wait_readable teardown (short run; docs/BENCHMARKS.md has the full one)"
  timeout 120 "$wine" "$build/bench/wait_teardown_bench.exe" --rounds 50 | tr -d '\r'
fi
echo "=== windows: done in $(( $(date +%s) - t_start )) s"
