#!/usr/bin/env bash
# 4 shards of a sweep run by GNU parallel, merged with the command docs/MAPS.md gives, equal the
# unsharded sweep row for row. Skips (77) without GNU parallel (Debian package parallel).
# Usage: sim_shard_parallel.sh ACKSTALL SCENARIO
set -euo pipefail
ackstall=$1 scenario=$2
command -v parallel >/dev/null || { echo "SKIP: GNU parallel not installed (Debian package parallel)"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ackstall-shard-XXXXXX")
trap 'rm -rf "$dir"' EXIT
sweep=(--set app.transmitter.writes=40 --sweep sender.send_buffer.size=1k..64k:x2
       --sweep app.transmitter.write_len=1k..64k:x4 --sweep app.transmitter.chunking=none,seed,cygwin)
"$ackstall" sim "$scenario" "${sweep[@]}" --csv "$dir/whole.csv" >/dev/null
parallel --will-cite -j2 "$ackstall" sim "$scenario" "${sweep[@]}" --shard {}/4 --csv "$dir/part{}.csv" \
  '>/dev/null' ::: 1 2 3 4
# The merge (docs/MAPS.md): one header, then every part's rows by cell number.
{ head -n 1 "$dir/part1.csv"; tail -q -n +2 "$dir"/part*.csv | sort -t, -k1,1n; } > "$dir/merged.csv"
rows=$(($(wc -l < "$dir/whole.csv") - 1))
[ "$rows" -eq $((7 * 4 * 3)) ] || { echo "FAIL: $rows rows, expected 84"; exit 1; }
if cmp -s "$dir/whole.csv" "$dir/merged.csv"; then
  echo "OK: 4 shards by GNU parallel merge to the unsharded $rows rows"
else
  diff "$dir/whole.csv" "$dir/merged.csv" | head -5
  echo "FAIL: merged shards differ from the unsharded sweep"
  exit 1
fi
