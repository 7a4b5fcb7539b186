"""Per-step medians of the fixed-wall-time NeuralBO runs scripts/gpu-measure.sh makes.

    python3 docs/results/gpu/runs.py OUT/run-cpu OUT/run-cuda

For each run folder: the evaluations journaled, the best value, and the median over the
model-driven steps of the training and acquisition seconds and of the Adam epochs.
"""
import json
import statistics
import sys

for folder in sys.argv[1:]:
    records = [json.loads(line) for line in open(folder + "/journal.jsonl") if line.strip()]
    evaluated = [r for r in records if "index" in r and r.get("observed")]
    steps = [r["diagnostics"] for r in evaluated if r.get("diagnostics")]
    if not steps:
        print(f"{folder}: {len(evaluated)} evaluations, no model-driven step")
        continue
    median = lambda key: statistics.median(s.get(key, 0.0) for s in steps)
    best = min(r["observed"]["objective"] for r in evaluated)
    print(
        f"{folder}: {len(evaluated)} evaluations, best {best:.3f}; per step: training "
        f"{median('train_seconds'):.2f} s over {median('epochs'):.0f} epochs, acquisition "
        f"{median('acquisition_seconds'):.2f} s"
    )
