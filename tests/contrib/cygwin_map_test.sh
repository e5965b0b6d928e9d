#!/usr/bin/env bash
# examples/maps/cygwin-today.toml on the LAN (docs/MAPS.md "Today's Cygwin and MSYS2"): the
# patched Cygwin cut (policy robust: contrib/cygwin/cygwin_piece.h cuts as robust on this grid,
# tests/contrib/cygwin_piece_test.cc) has no delayed-ACK or Nagle stall in any cell, today's cut
# (policy cygwin) has some, and the patched cut's goodput is >= 0.99 of today's in every cell
# where today's does not stall.
#   tests/contrib/cygwin_map_test.sh ACKSTALL SOURCE_DIR
set -euo pipefail
ackstall=$1 src=$2
csv=$(mktemp); trap 'rm -f "$csv"' EXIT
"$ackstall" sim "$src/examples/maps/cygwin-today.toml" --sweep app.transmitter.chunking=cygwin,robust \
  --csv "$csv" >/dev/null
awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    key = $col["sender.send_buffer.size"] " " $col["app.transmitter.write_len"] " " $col["receiver.profile"]
    pol = $col["app.transmitter.chunking"]
    stalls[key, pol] = $col["delayed_ack_count"] + $col["nagle_hold_count"]
    mib[key, pol] = $col["goodput_mib_s"]; keys[key] = 1
  }
  END {
    bad = 0; today = 0; n = 0
    for (k in keys) {
      n++
      if (stalls[k, "cygwin"] > 0) today++
      if (stalls[k, "robust"] > 0) { print "patched cut stalls: " k; bad = 1 }
      if (stalls[k, "cygwin"] == 0 && mib[k, "robust"] < 0.99 * mib[k, "cygwin"]) {
        print "patched cut below 0.99 of today: " k " " mib[k, "robust"] " vs " mib[k, "cygwin"]; bad = 1
      }
    }
    if (n != 280) { print "expected 280 cells, got " n; bad = 1 }
    if (today == 0) { print "today'"'"'s cut stalls nowhere: the map no longer shows the problem"; bad = 1 }
    printf "%d cells; today'"'"'s cut stalls in %d, the patched cut in none\n", n, today
    exit bad
  }' "$csv"
