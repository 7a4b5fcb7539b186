"""Under pinnbo's own fitted GP (hyperparameters from its journal), how much better is the
reference library's LogEI optimizer than the point pinnbo proposed?

    python acquisition_gap.py RUNS/levy-10/gp-ei -10 10    # the runs' folder, the box's bounds
"""
import sys, json, math, torch
from gpytorch.kernels import MaternKernel, ScaleKernel
from gpytorch.means import ZeroMean
from botorch.models import SingleTaskGP
from botorch.acquisition import LogExpectedImprovement
from botorch.optim import optimize_acqf
torch.set_default_dtype(torch.float64)
run, lo, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
gaps = []
for seed in range(10):
    recs = [json.loads(l) for l in open(f"{run}/seed{seed}/journal.jsonl")][1:]
    recs = [r for r in recs if "index" in r]
    for t in (10, 20, 30):
        if t >= len(recs): continue
        r = recs[t]; h = r["diagnostics"]
        X = (torch.tensor([q["x"] for q in recs[:t]]) - lo) / (hi - lo)
        y = torch.tensor([q["observed"]["objective"] for q in recs[:t]])
        ys = (y - y.mean()) / y.std(unbiased=False)
        d = X.shape[1]
        k = ScaleKernel(MaternKernel(nu=2.5, ard_num_dims=d))
        k.base_kernel.lengthscale = torch.tensor(h["lengthscales"])
        k.outputscale = torch.tensor(h["signal_variance"])
        m = SingleTaskGP(X, ys.unsqueeze(-1), train_Yvar=torch.full((t, 1), h["noise_variance"]), covar_module=k, mean_module=ZeroMean())
        m.eval()
        with torch.no_grad():
            inc = m.posterior(X).mean.min().item()
        acq = LogExpectedImprovement(m, best_f=inc, maximize=False)
        xp = ((torch.tensor(r["x"]) - lo) / (hi - lo)).unsqueeze(0)
        with torch.no_grad():
            at_pinnbo = acq(xp.unsqueeze(0)).item()
        u, best = optimize_acqf(acq, bounds=torch.stack([torch.zeros(d), torch.ones(d)]), q=1, num_restarts=10, raw_samples=512)
        gaps.append(best.item() - at_pinnbo)
        print(f"seed {seed} t {t}: logEI pinnbo {at_pinnbo:.3f} optimizer {best.item():.3f} gap {best.item()-at_pinnbo:.3f} dist {(u-xp).norm().item():.2f}", flush=True)
gaps.sort()
print("median gap", gaps[len(gaps)//2], "max", gaps[-1], "share > 0.5:", sum(g > 0.5 for g in gaps) / len(gaps))
