"""Summarizes ``run.py``'s (and ``reference.py``'s) ``runs.csv`` files as the NeuralBO paper
reports BBOB: the fraction of (function, target) pairs reached at the end of the budget, with
COCO's 51 targets 10^2 .. 10^-8 on the precision f - f_opt, averaged over instances; and per
function the median over instances of log10 of the best precision, counting the functions
where each method's median is the best (ties count for each).

    python benches/bbob/summary.py bbob/runs.csv [reference/runs.csv ...] > summary.md

(``.csv.gz`` files are read as they are.)
"""

import csv
import gzip
import math
import statistics
import sys
from collections import defaultdict

TARGETS = [10 ** (2 - 0.2 * k) for k in range(51)]
FLOOR = 1e-8  # COCO's final target: precisions below it count as reached at 1e-8


def best_precisions(paths):
    """(label, dim) -> {(function, instance): best precision}, and the evaluations per run."""
    best = defaultdict(dict)
    for path in paths:
        opened = gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")
        with opened as f:
            for r in csv.DictReader(f):
                key = (r["label"], int(r["dim"]))
                run = (int(r["function"]), int(r["instance"]))
                p = max(float(r["precision"]), 0.0)
                best[key][run] = min(best[key].get(run, math.inf), p)
    return best


def fraction_reached(runs):
    hits = sum(p <= t for p in runs.values() for t in TARGETS)
    return hits / (len(runs) * len(TARGETS))


def median_log(runs, fn):
    values = [math.log10(max(p, FLOOR)) for (f, _), p in runs.items() if f == fn]
    return statistics.median(values) if values else math.nan


def main(paths):
    best = best_precisions(paths)
    dims = sorted({d for _, d in best})
    for dim in dims:
        labels = sorted(label for label, d in best if d == dim)
        runs = {label: best[(label, dim)] for label in labels}
        # Compared on the runs every method has.
        common = set.intersection(*(set(r) for r in runs.values()))
        functions = sorted({f for f, _ in common})
        instances = sorted({i for _, i in common})
        runs = {label: {k: v for k, v in r.items() if k in common} for label, r in runs.items()}
        medians = {label: {fn: median_log(r, fn) for fn in functions} for label, r in runs.items()}
        wins = defaultdict(int)
        for fn in functions:
            low = min(medians[label][fn] for label in labels)
            for label in labels:
                wins[label] += medians[label][fn] == low
        if len(common) == len(functions) * len(instances):
            shape = f"{len(functions)} functions x {len(instances)} instances"
        else:
            shape = f"{len(functions)} functions, not each on every instance"
        print(f"## d = {dim} ({shape}, {len(common)} runs each)\n")
        print("| method | fraction of (function, target) pairs reached | functions where its median is best |")
        print("|---|---|---|")
        for label in sorted(labels, key=lambda l: -fraction_reached(runs[l])):
            print(f"| {label} | {fraction_reached(runs[label]):.3f} | {wins[label]} of {len(functions)} |")
        print("\nMedian log10 best precision per function:\n")
        print("| f | " + " | ".join(labels) + " |")
        print("|---|" + "---|" * len(labels))
        for fn in functions:
            cells = [f"{medians[label][fn]:.2f}" for label in labels]
            print(f"| {fn} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
