"""The reference GP-BO library on a design problem's objective alone, from pinnbo's own initial
designs. For each seed, the initial points are read from the journal of a `pinnbo bench` run
(JOURNALS/seed<S>/journal.jsonl); each step fits the library's default SingleTaskGP to the
objective (and one to each constraint, as a ModelListGP), maximizes analytic LogEI (LogCEI with
constraints; optimize_acqf, 10 restarts from 512 raw samples) and observes the design through
`pinnbo eval FILE --at .. --json` ($PINNBO, the same fdm simulator pinnbo's runs used). Prints
each seed's final simple regret against the file's `optimum`.

Usage (a throwaway environment outside the repository with botorch installed):
    PINNBO=target/debug/pinnbo python reference_design.py FILE.pde JOURNALS BUDGET [SEEDS]
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

import torch
from botorch.acquisition import LogExpectedImprovement
from botorch.acquisition.analytic import LogConstrainedExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import ModelListGP, SingleTaskGP
from botorch.models.transforms import Standardize
from botorch.optim import optimize_acqf
from gpytorch.mlls import ExactMarginalLogLikelihood, SumMarginalLogLikelihood

torch.set_default_dtype(torch.float64)

path, journals, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
text = open(path).read()
design = text.split("\ncoord")[0]
box = [(m[0], float(eval(m[1])), float(eval(m[2])))
       for m in re.findall(r"(\w+) in \[([^,\]]+), ([^\]]+)\]", design)]
names = [b[0] for b in box]
lo, hi = torch.tensor([b[1] for b in box]), torch.tensor([b[2] for b in box])
d = len(box)
sign = -1.0 if re.search(r"^maximize", text, re.M) else 1.0
optimum = sign * float(re.search(r"^optimum (\S+)", text, re.M)[1])
binary = os.environ.get("PINNBO", "target/debug/pinnbo")


def observe(x):
    """(minimized objective, constraints) at each row of x."""
    rows = []
    for row in x.tolist():
        at = ",".join(f"{n}={v!r}" for n, v in zip(names, row))
        out = subprocess.run([binary, "eval", path, "--at", at, "--json"],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out)
        rows.append([sign * r["objective"]] + [c["value"] for c in r["constraints"]])
    return torch.tensor(rows)


def feasible_best(Y):
    ok = (Y[:, 1:] <= 0).all(-1) if Y.shape[1] > 1 else torch.ones(len(Y), dtype=torch.bool)
    return Y[ok, 0].min().item() if ok.any() else math.inf


regrets = []
for seed in range(seeds):
    records = [json.loads(l) for l in open(f"{journals}/seed{seed}/journal.jsonl")][1:]
    init = [r for r in records if r.get("phase") == "init"]
    X = torch.tensor([r["x"] for r in init])
    Y = observe(X)
    m = Y.shape[1]
    while X.shape[0] < budget:
        U = (X - lo) / (hi - lo)
        models = [SingleTaskGP(U, (-Y[:, :1]) if k == 0 else Y[:, k:k + 1],
                               outcome_transform=Standardize(m=1)) for k in range(m)]
        if m == 1:
            model = models[0]
            fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
            best = -feasible_best(Y)
            acq = LogExpectedImprovement(model, best_f=best if math.isfinite(best) else (-Y[:, 0]).min())
        else:
            model = ModelListGP(*models)
            fit_gpytorch_mll(SumMarginalLogLikelihood(model.likelihood, model))
            best = -feasible_best(Y)
            acq = LogConstrainedExpectedImprovement(
                model, best_f=best if math.isfinite(best) else (-Y[:, 0]).min(),
                objective_index=0, constraints={k: (None, 0.0) for k in range(1, m)})
        u, _ = optimize_acqf(acq, bounds=torch.stack([torch.zeros(d), torch.ones(d)]),
                             q=1, num_restarts=10, raw_samples=512)
        x = lo + (hi - lo) * u
        X, Y = torch.cat([X, x]), torch.cat([Y, observe(x)])
    regrets.append(feasible_best(Y) - optimum)
    print(f"{path} seed {seed}: regret {regrets[-1]:.6g}", flush=True)
mean = statistics.mean(regrets)
se = statistics.stdev(regrets) / math.sqrt(len(regrets))
print(f"{path} budget {budget}: reference regret {mean:.4g} ± {se:.2g} ({seeds} seeds)")
