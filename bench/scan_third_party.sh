#!/usr/bin/env bash
# `ackstall scan` on a directory of captures nobody here made (e.g. the tcpdump project's tests/
# directory, or Wireshark's sample captures): every file scanned on its own with --json, then
#   * exit codes counted (0 a report; 1 no TCP flow or unreadable; 2 not a capture / damaged),
#   * no impossible figure in any report (bench/scan_invariants.py),
#   * the dominant and the problem causes counted over all directions.
# Usage: bench/scan_third_party.sh DIR [path/to/ackstall]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scan_third_party.sh DIR [ackstall]}
ackstall=${2:-$src/build/release/tools/ackstall/ackstall}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A codes=()
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  rc=0
  timeout 60 "$ackstall" scan --json "$f" > "$tmp/$n.json" 2> /dev/null || rc=$?
  codes[$rc]=$(( ${codes[$rc]:-0} + 1 ))
  [ "$rc" -eq 0 ] || rm -f "$tmp/$n.json"
done < <(find "$dir" -type f \( -name '*.pcap' -o -name '*.pcapng' -o -name '*.cap' -o -name '*.gz' -o -name '*.xz' \) -print0 | sort -z)
echo "files: $n"
for rc in "${!codes[@]}"; do echo "  exit $rc: ${codes[$rc]}"; done | sort
shopt -s nullglob
reports=("$tmp"/*.json)
[ ${#reports[@]} -gt 0 ] || { echo "no report"; exit 0; }
status=0
python3 "$src/bench/scan_invariants.py" "${reports[@]}" || status=1
python3 - "${reports[@]}" <<'PY'
import collections, json, sys
dom, prob = collections.Counter(), collections.Counter()
for p in sys.argv[1:]:
    j = json.load(open(p))
    for c in j.get("captures", [j]):
        for f in c["flows"]:
            for d in f["directions"]:
                g = d["diagnosis"]
                too_little = g["mechanism"].startswith("Too little") or not g["dominant"]
                dom["too little to judge" if too_little else g["dominant"]] += 1
                prob[g["problem"] or "none"] += 1
print("dominant cause:", ", ".join(f"{k} {v}" for k, v in dom.most_common()))
print("problem cause: ", ", ".join(f"{k} {v}" for k, v in prob.most_common()))
PY
exit $status
