"""On pinnbo's own data at step t, the reference library's default model's proposal against
pinnbo's: the true objective at each, and the fitted length scales.

    python model_gap.py RUNS/levy-10/gp-ei levy      # or RUNS/ackley-10/gp-ei ackley
    python model_gap.py RUNS/levy-10/gp-ei levy zero # the reference's model with a zero mean
"""
import sys, json, math, torch, statistics

from botorch.models import SingleTaskGP
from botorch.models.transforms import Standardize
from botorch.fit import fit_gpytorch_mll
from gpytorch.mlls import ExactMarginalLogLikelihood
from botorch.acquisition import LogExpectedImprovement
from botorch.optim import optimize_acqf
from gpytorch.means import ZeroMean
torch.set_default_dtype(torch.float64)
from reference_bo_loop import ackley, levy  # the same closed forms
run, name = sys.argv[1], sys.argv[2]
# "zero": the standardized data's mean (pinnbo's `mean average`) instead of a fitted constant.
mean = {"mean_module": ZeroMean()} if sys.argv[3:] == ["zero"] else {}
f, lo, hi = {"levy": (levy, -10., 10.), "ackley": (ackley, -32.768, 32.768)}[name]
diffs = []; lref = []; lpin = []
for seed in range(10):
    recs = [json.loads(l) for l in open(f"{run}/seed{seed}/journal.jsonl")][1:]
    recs = [r for r in recs if "index" in r]
    for t in (10, 15, 20, 25, 30, 35):
        r = recs[t]
        X = (torch.tensor([q["x"] for q in recs[:t]]) - lo) / (hi - lo)
        y = torch.tensor([q["observed"]["objective"] for q in recs[:t]])
        torch.manual_seed(seed * 100 + t)
        m = SingleTaskGP(X, (-y).unsqueeze(-1), outcome_transform=Standardize(m=1), **mean)
        fit_gpytorch_mll(ExactMarginalLogLikelihood(m.likelihood, m))
        acq = LogExpectedImprovement(m, best_f=(-y).max())
        d = X.shape[1]
        u, _ = optimize_acqf(acq, bounds=torch.stack([torch.zeros(d), torch.ones(d)]), q=1, num_restarts=10, raw_samples=512)
        fr = f(lo + (hi - lo) * u).item(); fp = r["clean"]["objective"]
        diffs.append(fp - fr)
        ls = m.covar_module.lengthscale.detach().flatten().tolist() if hasattr(m.covar_module, "lengthscale") else m.covar_module.base_kernel.lengthscale.detach().flatten().tolist()
        lref.append(statistics.median(ls)); lpin.append(statistics.median(r["diagnostics"]["lengthscales"]))
        print(f"seed {seed} t {t}: f(pinnbo) {fp:8.2f} f(reference) {fr:8.2f} best so far {min(q['clean']['objective'] for q in recs[:t]):8.2f} median ℓ pinnbo {lpin[-1]:.2f} reference {lref[-1]:.2f} noise ref {m.likelihood.noise.item():.2e} pinnbo {r['diagnostics']['noise_variance']:.2e}", flush=True)
print("mean f(pinnbo) - f(reference):", statistics.mean(diffs), "reference lower in", sum(d > 0 for d in diffs), "of", len(diffs))
print("median ℓ: pinnbo", statistics.median(lpin), "reference", statistics.median(lref))
