#!/usr/bin/env bash
# Checks the Cygwin patch of this directory.
#
#   contrib/cygwin/check-apply.sh TREE...      # the patch applies to each Cygwin source TREE
#                                               # (git apply --check; TREE holds winsup/cygwin/)
#   contrib/cygwin/check-apply.sh --verbatim-only
#
# Both forms first check that the patch adds cygwin_piece.h's function (from its
# CYGWIN_PIECE_MAX define to the closing brace) verbatim, tabs for each 8 leading spaces as in
# socket_inet.cc. TREE may be a git work tree or a plain directory holding at least
# winsup/cygwin/fhandler/socket_inet.cc (README.md: how it was made from upstream snapshots).
# Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
patch=$(ls "$here"/0001-*.patch)
[ $# -ge 1 ] || { echo "usage: $0 TREE... | --verbatim-only" >&2; exit 2; }

# The function as the header has it, leading spaces turned into Cygwin's tabs.
want=$(sed -n '/^#define CYGWIN_PIECE_MAX/,/^}/p' "$here/cygwin_piece.h" | sed 's/^        /\t/')
# The function as the patch adds it.
got=$(sed -n '/^+#define CYGWIN_PIECE_MAX/,/^+}/p' "$patch" | sed 's/^+//')
if [ -z "$want" ] || [ "$want" != "$got" ]; then
  echo "FAIL: $(basename "$patch") does not carry cygwin_piece.h's function verbatim" >&2
  diff <(echo "$want") <(echo "$got") >&2 || true
  exit 1
fi
echo "ok: $(basename "$patch") carries cygwin_piece.h's function verbatim"
[ "$1" = --verbatim-only ] && exit 0

status=0
for tree in "$@"; do
  if [ ! -f "$tree/winsup/cygwin/fhandler/socket_inet.cc" ]; then
    echo "FAIL: $tree: no winsup/cygwin/fhandler/socket_inet.cc" >&2; status=1; continue
  fi
  if out=$(cd "$tree" && git apply --check --verbose "$patch" 2>&1); then
    echo "ok: applies to $tree"
  else
    echo "FAIL: does not apply to $tree:" >&2; echo "$out" >&2; status=1
  fi
done
exit $status
