#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing, then builds and
# runs every test twice: an optimised build and an ASan+UBSan build; then the Windows build
# under Wine (scripts/test-windows.sh). Ends with one line: "total: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
logs=$(mktemp -d)
status=0  # a failing stage does not stop the later ones; the exit code reports it
trap 'rm -rf "$logs"' EXIT
for preset in release asan; do
  echo "=== $preset: configure + build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "=== $preset: test"
  ctest --preset "$preset" 2>&1 | tee "$logs/$preset.log" || status=1
done
# Third stage: the Windows build (MinGW-w64) tested under Wine; skipped with a message where
# either is missing.
scripts/test-windows.sh 2>&1 | tee "$logs/windows.log" || status=1

# Sum ctest's "X% tests passed, F tests failed out of T" lines and its "(Skipped)" entries.
total=0 failed=0 skipped=0
for log in "$logs"/*.log; do
  line=$(grep -E '[0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1 || true)
  [ -n "$line" ] || continue
  total=$((total + $(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")))
  failed=$((failed + $(sed -E 's/.*, ([0-9]+) tests failed.*/\1/' <<<"$line")))
  skipped=$((skipped + $(grep -cE '\(Skipped\)$' "$log" || true)))
done
echo "total: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || status=1
exit "$status"
