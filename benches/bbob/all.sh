#!/usr/bin/env bash
# The whole BBOB comparison in one command: the initial designs, pinnbo's methods and the
# reference library from the same designs side by side, then the summary.
#
#   bash benches/bbob/all.sh OUT DIMS INSTANCES JOBS [SECONDS]
#
# e.g. `bash benches/bbob/all.sh bbob 2 1-3 1`. JOBS processes for pinnbo's methods and as
# many (or $REFERENCE_JOBS) for the reference at once; $METHODS replaces the methods below; with SECONDS, each part stops after that long, keeping
# every finished run (a rerun continues). Needs $PYTHON (default python3) with pinnbo and
# coco-experiment, and $REFERENCE_PYTHON (default the same) with botorch and coco-experiment
# (a throwaway environment: botorch is never pinnbo's dependency).
set -uo pipefail
out=${1:-bbob}; dims=${2:-2}; instances=${3:-1-3}; jobs=${4:-1}; seconds=${5:-0}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}; reference_py=${REFERENCE_PYTHON:-$py}
limit() { if [ "$seconds" -gt 0 ]; then timeout "$seconds" "$@"; else "$@"; fi; }
common=(--dims "$dims" --instances "$instances")
# NeuralBO as its paper ran it on BBOB: one hidden layer of 500 ReLU units, 50 epochs of
# batches of 50 at learning rate 0.001 (SGD there, Adam here), λ = 0.01, ν from {0.1, 1}.
paper="neural-bo:width=500;depth=1;lr=0.001;epochs=50;batch=50;steps=1"
methods=${METHODS:-"gp-ei,neural-bo,neural-greedy,random,paper-nu1=$paper;nu=1,paper-nu0.1=$paper;nu=0.1"}
# Every method's initial design is the instance's: taken once as `design` for the reference.
"$py" "$here/run.py" --methods design=random --budget-per-dim 2 "${common[@]}" --jobs "$jobs" --out "$out/design"
limit "$py" "$here/run.py" --methods "$methods" "${common[@]}" --jobs "$jobs" --out "$out/pinnbo" &
limit "$reference_py" "$here/reference.py" "$out/design/runs.csv" --design design --jobs "${REFERENCE_JOBS:-$jobs}" --out "$out/reference" &
wait
"$py" "$here/summary.py" "$out/pinnbo/runs.csv" "$out/reference/runs.csv" > "$out/summary.md"
cat "$out/summary.md"
