#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing, then builds and
# runs every test twice: an optimised build and an ASan+UBSan build; then the Windows build
# under Wine (scripts/test-windows.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
for preset in release asan; do
  echo "=== $preset: configure + build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "=== $preset: test"
  ctest --preset "$preset"
done
# Third stage: the Windows build (MinGW-w64) tested under Wine; skipped with a message where
# either is missing.
scripts/test-windows.sh
