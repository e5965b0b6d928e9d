#!/usr/bin/env bash
# The diagnosis ground-truth corpus, made and scored (docs/SCAN.md "The ground-truth corpus"):
# generate.py draws SEED's captures into a temporary directory (the lab's part needs root and
# dumpcap; without them it is left out and says so), score.py scans them all with
# `ackstall scan --json` and prints the confusion matrix, the share right per cause, the wrong
# answers and the impossible figures; the manifest is copied to OUT (the stored one:
# bench/diagnosis_corpus/manifest-seed37.json). The captures are removed unless KEEP_DIR is set;
# SIM_ONLY=1 leaves the lab's part out (it brings up the lab's fixed namespaces, ackstall-a/-b).
# Usage: bench/diagnosis_corpus/run.sh [path/to/ackstall] [SEED] [COUNT] [LAB] [LAB_EXTRA]
#   (default: build/release/tools/ackstall/ackstall 37 364 84 12; its time is in docs/SCAN.md,
#   most of it the lab's 96 transfers; LAB_EXTRA: the tail-loss entries after COUNT)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ackstall=${1:-$src/build/release/tools/ackstall/ackstall}
seed=${2:-37} count=${3:-364} lab=${4:-84} lab_extra=${5:-12}
[ -x "$ackstall" ] || { echo "no ackstall binary at $ackstall (build first)"; exit 1; }
dir=${KEEP_DIR:-$(mktemp -d)}
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT
sim_only=()
if [ -n "${SIM_ONLY:-}" ]; then
  echo "# SIM_ONLY set: the lab's $lab + $lab_extra captures are left out"
  sim_only=(--sim-only)
elif [ "$(id -u)" != 0 ] || ! command -v dumpcap >/dev/null; then
  echo "# not root or no dumpcap: the lab's $lab + $lab_extra captures are left out"
  sim_only=(--sim-only)
fi
python3 "$here/generate.py" --ackstall "$ackstall" --out "$dir" --seed "$seed" --count "$count" --lab "$lab" \
  --lab-extra "$lab_extra" "${sim_only[@]}"
python3 "$here/score.py" --ackstall "$ackstall" --show-wrong "$dir"
