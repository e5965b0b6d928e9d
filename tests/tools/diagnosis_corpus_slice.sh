#!/usr/bin/env bash
# A 30-capture slice of the diagnosis ground-truth corpus (bench/diagnosis_corpus, docs/SCAN.md
# "The ground-truth corpus"): entries 40-69 of seed 37's corpus (simulator captures, each cause
# the simulator models, every vantage point and artefact among them), generated into this test's
# own directory and scanned. What the rules of issue 37 achieve on it: in every row no answer
# names another cause than the truth (a wrong one may only be "too little to judge", as the
# mid-stream captures whose window scale and round trip are unknown are); no impossible figure.
# Usage: diagnosis_corpus_slice.sh ACKSTALL SOURCE_DIR
source "$(dirname "$0")/script_test_lib.sh"
require python3
ackstall=$1 src=$2
private_dir diagnosis-slice
python3 "$src/bench/diagnosis_corpus/generate.py" --ackstall "$ackstall" --out "$dir" --seed 37 \
  --count 70 --lab 40 --first 40 --sim-only
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['captures']))" "$dir/manifest.json")
[ "$n" = 30 ] || fail "the slice holds $n captures, not 30"
python3 "$src/bench/diagnosis_corpus/score.py" --ackstall "$ackstall" --show-wrong --expect-no-wrong "$dir" ||
  fail "a wrong answer or an impossible figure above"
