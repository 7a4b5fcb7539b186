"""The reference GP-BO library (BoTorch: a SingleTaskGP with its default priors and LogEI) on the
BBOB runs of ``run.py``, started from the very same initial designs: the first
``--init-per-dim`` x d evaluations of the label ``--design`` in ``runs.csv``, re-evaluated
through COCO's observer so its folder is complete. Writes rows of label ``reference`` to
``OUT/runs.csv`` (same columns) and COCO's files to ``OUT/coco/reference-d<d>/``;
``summary.py`` reads both runs files.

    python benches/bbob/reference.py bbob/runs.csv --design gp-ei --jobs 2 --out bbob-reference

Install BoTorch in a throwaway environment (``pip install botorch coco-experiment``); never a
dependency of pinnbo.
"""

import argparse
import csv
import os
import sys
from collections import defaultdict

from run import execute, finished, parse_range, part, run_rows


def designs(path, label, per_dim):
    """(dim, function, instance) -> the label's first per_dim x dim points."""
    runs = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["label"] == label:
                key = (int(r["dim"]), int(r["function"]), int(r["instance"]))
                runs[key].append((int(r["evaluation"]), [float(v) for v in r["x"].split()]))
    return {k: [x for _, x in sorted(v)][: per_dim * k[0]] for k, v in runs.items()}


def run_function(job):
    """Every instance of one (dimension, function) from its designs; returns the rows."""
    import cocoex
    import torch
    from botorch.acquisition import LogExpectedImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.transforms import Standardize
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood

    dim, fn, starts, args = job
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    os.chdir(args.out)  # COCO writes under ./exdata/
    observer = cocoex.Observer("bbob", f"result_folder: {part('reference', dim, fn)} algorithm_name: reference")
    suite = cocoex.Suite("bbob", "", f"dimensions:{dim}")
    rows = []
    for inst, start in starts:
        problem = suite.get_problem_by_function_dimension_instance(fn, dim, inst)
        problem.observe_with(observer)
        f_opt = cocoex.BareProblem("bbob", fn, dim, inst).best_value()
        lo, hi = torch.tensor(problem.lower_bounds), torch.tensor(problem.upper_bounds)
        torch.manual_seed(inst)
        xs, ys = [], []
        for x in start:
            xs.append(x)
            ys.append(float(problem(x)))
        bounds = torch.stack([torch.zeros(dim), torch.ones(dim)])
        while len(xs) < args.budget_per_dim * dim:
            unit = (torch.tensor(xs) - lo) / (hi - lo)
            y = -torch.tensor(ys).unsqueeze(-1)  # BoTorch maximizes
            model = SingleTaskGP(unit, y, outcome_transform=Standardize(m=1))
            fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
            acq = LogExpectedImprovement(model, best_f=y.max())
            u, _ = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
            x = (lo + (hi - lo) * u.squeeze(0)).tolist()
            xs.append(x)
            ys.append(float(problem(x)))
        problem.free()
        rows.extend(run_rows("reference", "botorch-logei", dim, fn, inst, list(zip(xs, ys)), f_opt))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs")
    parser.add_argument("--design", default="gp-ei", help="the label whose initial designs to start from")
    parser.add_argument("--functions", default="1-24", help="of those designs, these functions only")
    parser.add_argument("--budget-per-dim", type=int, default=20)
    parser.add_argument("--init-per-dim", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=1, help="(dimension, function) jobs at once")
    parser.add_argument("--out", default="bbob-reference")
    args = parser.parse_args()
    args.out = os.path.abspath(args.out)
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // max(1, args.jobs))))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "runs.csv")
    done = finished(path)
    grouped = defaultdict(list)
    functions = set(parse_range(args.functions))
    for (dim, fn, inst), start in sorted(designs(args.runs, args.design, args.init_per_dim).items()):
        if fn in functions and ("reference", dim, fn, inst) not in done:
            grouped[(dim, fn)].append((inst, start))
    jobs = [(dim, fn, starts, args) for (dim, fn), starts in sorted(grouped.items())]
    execute(args.out, run_function, jobs, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
