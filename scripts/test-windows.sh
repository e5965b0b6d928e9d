#!/usr/bin/env bash
# Third stage of scripts/test.sh: the Windows build, tested under Wine.
#
# Cross-compiles core + net, their tests, the ackstall tool (plan, probe, ttcp: sim, scan and lab
# are host-only) with its tests, and bench/wait_teardown_bench with MinGW-w64
# (cmake/toolchains/mingw-w64-x86_64.cmake), warnings as errors, the simulator off; then runs
# under Wine, headless:
#   * the unit tests (ctest, through CMAKE_CROSSCOMPILING_EMULATOR: core, net, the ttcp library's
#     ttcp_lib_test, the tool's), among them the loopback
#     transfer through Wine's Winsock (net_loopback_test: ChunkedSender -> recv in two threads,
#     stream hash compared byte for byte) and ttcp_test (both ends of ackstall ttcp in one
#     Windows process);
#   * ackstall.exe ttcp -t under Wine against the Linux `ackstall ttcp -r` on loopback, and the
#     other way round, each with the -s pattern (--verify, byte for byte) and without -s (stdin
#     -> stdout, compared): ctest cross.ttcp_* (tests/tools/cross_ttcp.sh), talking to the host
#     tool of the release build (ACKSTALL_HOST_TOOL; skipped with a message if it is not built);
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
  -DACKSTALL_BUILD_TOOLS=ON -DACKSTALL_BUILD_BENCH=ON \
  -DACKSTALL_HOST_TOOL="${ACKSTALL_HOST_TOOL:-$src/build/release/tools/ackstall/ackstall}" >/dev/null
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

if [ -f "$build/bench/wait_teardown_bench.exe" ]; then
  echo "=== windows: wait_readable teardown (short run; docs/BENCHMARKS.md has the full one)"
  timeout 120 "$wine" "$build/bench/wait_teardown_bench.exe" --rounds 50 | tr -d '\r'
fi
echo "=== windows: done in $(( $(date +%s) - t_start )) s"
