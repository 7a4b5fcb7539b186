#!/usr/bin/env bash
# The GPU measurements of docs/gpu.md as one script for a machine with a GPU: seconds per
# training step of NeuralBO and PINN-BO on the CPU and on CUDA, in f32 and f64, and a
# NeuralBO run at d = 100 on each. Every measurement has its own time limit and the whole a
# deadline (TOTAL_LIMIT, 540 s), so it ends within ten minutes whatever happens; a
# measurement that runs out, or is skipped at the deadline, says so.
#
#   bash scripts/build-cuda.sh                      # here: dist/cuda/{pinnbo,iteration_cost}
#   tar -C dist -xJf dist/cuda.tar.xz             # there, from a checkout of the repository
#   bash scripts/gpu-measure.sh dist/cuda OUT       # (it sources dist/cuda/cuda-env.sh)
#
# Settings (environment; the defaults are the issue's sizes):
#   DEVICES="cpu cuda" DTYPES="f32 f64" DS="10 100" NS="200 2000 20000" STEPS=20
#   RESIDUALS="256 4096" STEP_LIMIT=30 (s per measurement) RUN_BUDGET=2000 RUN_LIMIT=120
#   TOTAL_LIMIT=540
set -uo pipefail

bin=$(cd "${1:?the folder holding pinnbo and iteration_cost}" && pwd)
out=${2:?an output folder}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -f "$bin/cuda-env.sh" ]; then
    # shellcheck source=/dev/null
    source "$bin/cuda-env.sh"
fi
devices=${DEVICES:-cpu cuda}
dtypes=${DTYPES:-f32 f64}
ds=${DS:-10 100}
ns=${NS:-200 2000 20000}
steps=${STEPS:-20}
residuals=${RESIDUALS:-256 4096}
step_limit=${STEP_LIMIT:-30}
run_budget=${RUN_BUDGET:-2000}
run_limit=${RUN_LIMIT:-120}
deadline=$((SECONDS + ${TOTAL_LIMIT:-540}))
cd "$root"

{
    echo "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores"
    "$bin/pinnbo" --version
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>&1 || true
} | tee "$out/machine.txt"

# One step of a method with t observations (iteration_cost prints the step's diagnostics:
# train_seconds, epochs, acquisition_seconds, train_loss; and the proposal, so that the same
# step on the CPU and on CUDA can be compared: final loss and point).
step() {
    local label=$1
    shift
    printf '%s\t' "$label" >>"$out/steps.tsv"
    # The runs at the end keep their share of the deadline.
    local left=$((deadline - SECONDS - 2 * run_limit))
    if [ "$left" -le 0 ]; then
        echo "skipped: past the deadline" >>"$out/steps.tsv"
    elif ! timeout "$((left < step_limit ? left : step_limit))" "$bin/iteration_cost" "$@" >>"$out/steps.tsv" 2>>"$out/steps.err"; then
        echo "no result within ${step_limit} s (or failed: steps.err)" >>"$out/steps.tsv"
    fi
    tail -n 1 "$out/steps.tsv"
}

: >"$out/steps.tsv"
# NeuralBO: one hidden layer of 500, full-batch Adam for STEPS steps on n observations, then
# the acquisition (10,000 candidates).
for d in $ds; do
    for n in $ns; do
        for device in $devices; do
            for dtype in $dtypes; do
                step "neural-bo d=$d n=$n $device $dtype" "problems/ackley-$d.pde" neural-bo "$n" \
                    width=500 depth=1 "device=$device" "dtype=$dtype" "epochs=$steps" \
                    "steps=$steps" "batch=$n"
            done
        done
    done
done
# PINN-BO on the dropwave problem's pde: STEPS full-batch steps over the residual points.
for r in $residuals; do
    for device in $devices; do
        step "pinn-bo residuals=$r $device" problems/dropwave.pde pinn-bo 20 "residual_points=$r" \
            "residual_batch=$r" "device=$device" "epochs=$steps" "warm_epochs=$steps"
    done
done

# The evaluations a journal holds and the best value measured.
journal_summary='
import json, sys
records = [json.loads(l) for l in open(sys.argv[1] + "/journal.jsonl") if l.strip()]
values = [r["observed"]["objective"] for r in records if "index" in r and r.get("observed")]
print(len(values), min(values) if values else "?")
'
# A NeuralBO run at d = 100 (the thesis's setting) on each device, for RUN_LIMIT seconds at
# most (then interrupted as Ctrl-C would): the evaluations reached and the best value.
for device in $devices; do
    dir=$out/run-$device
    rm -rf "$dir"
    start=$(date +%s)
    left=$((deadline - SECONDS))
    timeout -s INT "$((left < run_limit ? (left > 1 ? left : 1) : run_limit))" "$bin/pinnbo" solve problems/ackley-100.pde --method neural-bo \
        --device "$device" --budget "$run_budget" --out "$dir" --quiet 2>>"$out/runs.err"
    code=$?
    seconds=$(($(date +%s) - start))
    read -r evaluations best < <(python3 -c "$journal_summary" "$dir" 2>/dev/null || echo "0 ?")
    echo "run $device: exit $code, $seconds s, $evaluations evaluations, best $best" |
        tee -a "$out/runs.txt"
done
echo "results in $out"
