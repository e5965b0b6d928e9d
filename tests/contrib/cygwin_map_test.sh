#!/usr/bin/env bash
# examples/maps/cygwin-today.toml (docs/MAPS.md "Today's Cygwin and MSYS2") on both of its paths,
# the LAN and a 50 ms path (link.prop_delay=25ms; there only waits beyond one round trip + 20 ms
# count as stalls, --stall-threshold 70ms): the patched cut (policy cygwin-patch, which runs
# contrib/cygwin/cygwin_piece.h's function) has no delayed-ACK or Nagle stall in any cell, today's
# cut (policy cygwin) has some, and the patched cut's goodput is >= 0.99 of today's in every cell
# where today's does not stall.
#   tests/contrib/cygwin_map_test.sh ACKSTALL SOURCE_DIR
set -euo pipefail
ackstall=$1 src=$2
csv=$(mktemp); trap 'rm -f "$csv"' EXIT
status=0
for path in lan 50ms; do
  extra=()
  [ "$path" = 50ms ] && extra=(--set link.prop_delay=25ms --stall-threshold 70ms)
  "$ackstall" sim "$src/examples/maps/cygwin-today.toml" --sweep app.transmitter.chunking=cygwin,cygwin-patch \
    "${extra[@]}" --csv "$csv" >/dev/null
  awk -F, -v path="$path" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
      key = $col["sender.send_buffer.size"] " " $col["app.transmitter.write_len"] " " $col["receiver.profile"]
      pol = $col["app.transmitter.chunking"]
      stalls[key, pol] = $col["delayed_ack_count"] + $col["nagle_hold_count"]
      mib[key, pol] = $col["goodput_mib_s"]; keys[key] = 1; total[pol] += $col["goodput_mib_s"]
    }
    END {
      bad = 0; today = 0; n = 0; min = ""
      for (k in keys) {
        n++
        if (stalls[k, "cygwin"] > 0) today++
        if (stalls[k, "cygwin-patch"] > 0) { print path ": patched cut stalls: " k; bad = 1 }
        if (stalls[k, "cygwin"] == 0) {
          r = mib[k, "cygwin-patch"] / mib[k, "cygwin"]
          if (min == "" || r < min) min = r
          if (r < 0.99) { print path ": patched cut below 0.99 of today: " k " " mib[k, "cygwin-patch"] " vs " mib[k, "cygwin"]; bad = 1 }
        }
      }
      if (n != 280) { print path ": expected 280 cells, got " n; bad = 1 }
      if (today == 0) { print path ": today'"'"'s cut stalls nowhere: the map no longer shows the problem"; bad = 1 }
      printf "%s: %d cells; today'"'"'s cut stalls in %d, the patched cut in %s; patched/today >= %.4f where today does not stall; total %.2f vs %.2f MiB/s\n",
             path, n, today, bad ? "some" : "none", min, total["cygwin-patch"], total["cygwin"]
      exit bad
    }' "$csv" || status=1
done
exit $status
