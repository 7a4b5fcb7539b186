"""The reference GP library's multi-objective loop from pinnbo's own initial designs, on the
two-objective problems of this folder.

For each seed the initial design is read from pinnbo's gp-ei journal of the same seed
(BENCH/<problem>/gp-ei/seed<N>/journal.jsonl), so both methods start from the very same
evaluations. Each step fits the library's default independent GPs (SingleTaskGP per objective
and per constraint, outcomes standardized), maximizes its default multi-objective criterion,
qLogNoisyExpectedHypervolumeImprovement with q = 1 (the file's reference point; constraints as
outcome constraints), by optimize_acqf (10 restarts from 512 raw samples), and evaluates the
point with `pinnbo eval FILE --at .. --json` (the binary named by $PINNBO, default
target/release/pinnbo). The hypervolume of the feasible evaluations so far is computed as
pinnbo computes it. Writes rows in the format of `pinnbo bench`'s results.csv (method
`reference-ehvi`) to OUT.

    python reference_ehvi.py BENCH OUT.csv FILE.pde [FILE.pde ...]
"""
import csv, json, os, subprocess, sys, time
import torch
from botorch.acquisition.multi_objective.logei import qLogNoisyExpectedHypervolumeImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import ModelListGP, SingleTaskGP
from botorch.models.transforms import Standardize
from botorch.optim import optimize_acqf
from gpytorch.mlls import SumMarginalLogLikelihood

torch.set_default_dtype(torch.float64)
PINNBO = os.environ.get("PINNBO", "target/release/pinnbo")

# Each problem's variables (name, lower, upper), objectives (name, minimized?), constraints.
SPACES = {
    "zdt1-4": ([(f"x[{i}]", 0.0, 1.0) for i in range(1, 5)], [("f1", True), ("f2", True)], 0),
    "zdt2-3": ([(f"x[{i}]", 0.0, 1.0) for i in range(1, 4)], [("f1", True), ("f2", True)], 0),
    "cantilever": ([("w", 0.01, 0.1), ("h", 0.02, 0.2)], [("mass", True), ("deflection", True)], 1),
}


def header(path):
    """The problem's name, budget, initial design size, optimum and reference point."""
    name, budget, init, optimum, reference = None, None, None, None, {}
    for line in open(path):
        words = line.replace(",", " ").replace("=", " ").split()
        if words[:1] == ["problem"]:
            name = line.split('"')[1]
        if words[:1] == ["budget"]:
            budget, init = int(words[1]), int(words[3])
        if words[:1] == ["optimum"]:
            optimum = float(words[1])
        if words[:1] == ["reference"]:
            reference = {words[i]: float(words[i + 1]) for i in range(1, len(words), 2)}
    return name, budget, init, optimum, reference


def evaluate(path, names, x):
    text = ",".join(f"{n}={v}" for n, v in zip(names, x))
    out = json.loads(subprocess.run([PINNBO, "eval", path, "--at", text, "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    return out


def hypervolume(points, reference):
    """Two objectives, minimized: the staircase under the reference."""
    inside = sorted(p for p in points if p[0] < reference[0] and p[1] < reference[1])
    area, ceiling = 0.0, reference[1]
    for k, (a, b) in enumerate(inside):
        right = inside[k + 1][0] if k + 1 < len(inside) else reference[0]
        ceiling = min(ceiling, b)
        area += (right - a) * (reference[1] - ceiling)
    return area


def run(path, bench, seed):
    name, budget, init, optimum, reference = header(path)
    variables, objectives, n_constraints = SPACES[name]
    names = [v[0] for v in variables]
    lo = torch.tensor([v[1] for v in variables])
    hi = torch.tensor([v[2] for v in variables])
    ref = [reference[o] for o, _ in objectives]
    journal = os.path.join(bench, name, "gp-ei", f"seed{seed}", "journal.jsonl")
    design = [json.loads(l)["x"] for l in open(journal) if json.loads(l).get("phase") == "init"]
    assert len(design) == init, (journal, len(design))
    xs, values, rows, started = [], [], [], time.time()

    def observe(x):
        out = evaluate(path, names, x)
        f = [out["objectives"][o] for o, _ in objectives]
        c = [c["value"] for c in out["constraints"]]
        xs.append(list(x))
        values.append((f, c))
        feasible = [v for v, cs in values if all(ci <= 0 for ci in cs)]
        hv = hypervolume(feasible, ref)
        rows.append([name, "reference-ehvi", seed, len(xs), hv, optimum - hv, optimum - hv, time.time() - started])

    for x in design:
        observe(x)
    while len(xs) < budget:
        X = (torch.tensor(xs) - lo) / (hi - lo)
        # The library maximizes: objectives negated, constraints as further outcomes (<= 0).
        Y = torch.tensor([[-v for v in f] + c for f, c in values])
        models = [SingleTaskGP(X, Y[:, k:k + 1], outcome_transform=Standardize(m=1)) for k in range(Y.shape[1])]
        model = ModelListGP(*models)
        fit_gpytorch_mll(SumMarginalLogLikelihood(model.likelihood, model))
        m = len(objectives)
        constraints = [(lambda Z, k=k: Z[..., m + k]) for k in range(n_constraints)]
        acq = qLogNoisyExpectedHypervolumeImprovement(
            model=model, ref_point=[-r for r in ref], X_baseline=X, prune_baseline=True,
            objective=None if not constraints else _objective(m), constraints=constraints or None)
        bounds = torch.stack([torch.zeros(len(names)), torch.ones(len(names))])
        cand, _ = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
        observe((lo + cand[0] * (hi - lo)).tolist())
    return rows


def _objective(m):
    from botorch.acquisition.multi_objective.objective import IdentityMCMultiOutputObjective
    return IdentityMCMultiOutputObjective(outcomes=list(range(m)))


def main():
    bench, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["problem", "method", "seed", "evaluation", "best_so_far", "regret", "regret_plus_violation", "seconds"])
        for path in files:
            for seed in range(10):
                rows = run(path, bench, seed)
                w.writerows(rows)
                f.flush()
                print(path, seed, rows[-1][4], rows[-1][5], round(rows[-1][7], 1), flush=True)


if __name__ == "__main__":
    main()
