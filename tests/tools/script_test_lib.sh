# The shared start of the tools' script tests (source it): strict mode, a skip (exit 77, which
# ctest's SKIP_RETURN_CODE reports) when a tool is missing, a private temporary directory removed
# on exit, and FAIL lines that name what failed.
#   source "$(dirname "$0")/script_test_lib.sh"
#   require tshark "Debian package tshark"; require python3
#   private_dir NAME      # sets $dir
set -Eeuo pipefail
require() { command -v "$1" >/dev/null || { echo "SKIP: $1 not installed${2:+ ($2)}"; exit 77; }; }
fail() { echo "FAIL: $*"; exit 1; }
private_dir() {
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ackstall-$1-XXXXXX")
  trap 'rm -rf "$dir"' EXIT
  trap 'echo "FAIL: command at line $LINENO failed"' ERR
}
