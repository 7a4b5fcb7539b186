"""One GP-BO step of the reference library at t observations, d = 10 (Ackley on [-32.768, 32.768]^10,
scaled to the unit cube): fit a SingleTaskGP (its defaults: priors, L-BFGS-B fit), then maximize
analytic LogEI with optimize_acqf (10 restarts from 512 raw samples). Prints seconds and peak RSS."""
import sys, time, math, resource
import torch
from botorch.models import SingleTaskGP
from botorch.models.transforms import Standardize
from botorch.fit import fit_gpytorch_mll
from gpytorch.mlls import ExactMarginalLogLikelihood
from botorch.acquisition import LogExpectedImprovement
from botorch.optim import optimize_acqf
from torch.quasirandom import SobolEngine

torch.set_default_dtype(torch.float64)
t = int(sys.argv[1]); d = 10
X = SobolEngine(d, scramble=True, seed=0).draw(t)
x = X * 65.536 - 32.768
f = -20 * torch.exp(-0.2 * torch.sqrt((x**2).mean(-1))) - torch.exp(torch.cos(2 * math.pi * x).mean(-1)) + 20 + math.e
Y = (-f).unsqueeze(-1)  # the library maximizes
start = time.perf_counter()
model = SingleTaskGP(X, Y, outcome_transform=Standardize(m=1))
fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
acq = LogExpectedImprovement(model, best_f=Y.max())
bounds = torch.stack([torch.zeros(d), torch.ones(d)])
cand, _ = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"reference t={t}: {seconds:.3f} s, peak {peak:.0f} MiB")
