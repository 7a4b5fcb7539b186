"""The reference library's GP-BO loop from pinnbo's own initial designs: for each seed, the
initial points and their noisy values are read from pinnbo's journal, then each step fits the
library's default SingleTaskGP, maximizes analytic LogEI (optimize_acqf, 10 restarts from 512
raw samples), and observes the closed-form objective plus Gaussian noise of pinnbo's standard
deviation (estimated from the journal's observed - clean). Prints each seed's final simple regret."""
import sys, json, math, statistics
import torch
from botorch.models import SingleTaskGP
from botorch.models.transforms import Standardize
from botorch.fit import fit_gpytorch_mll
from gpytorch.mlls import ExactMarginalLogLikelihood
from botorch.acquisition import LogExpectedImprovement
from botorch.optim import optimize_acqf
torch.set_default_dtype(torch.float64)

def ackley(x):
    d = x.shape[-1]
    return -20*torch.exp(-0.2*torch.sqrt((x**2).sum(-1)/d)) - torch.exp(torch.cos(2*math.pi*x).sum(-1)/d) + 20 + math.e
def dropwave(x):
    r2 = (x**2).sum(-1)
    return -(1 + torch.cos(12*torch.sqrt(r2))) / (0.5*r2 + 2)
def levy(x):
    w = 1 + (x - 1) / 4
    head = torch.sin(math.pi * w[..., 0])**2
    body = ((w[..., :-1] - 1)**2 * (1 + 10 * torch.sin(math.pi * w[..., :-1] + 1)**2)).sum(-1)
    tail = (w[..., -1] - 1)**2 * (1 + torch.sin(2 * math.pi * w[..., -1])**2)
    return head + body + tail
def beam(x):
    # The beam's exact displacement (problems/beam.pde's comments); pinnbo's oracle is the FDM
    # solution of the same problem, equal to it within 1e-6.
    x = x[..., 0]
    return torch.sin(4*math.pi*torch.exp(2*x)) + torch.exp(2*x)*torch.sin(20*x) + 0.4*x**3 + 0.2*x**2
PROBLEMS = {"ackley-10": (ackley, -32.768, 32.768, 10, 0.0), "dropwave": (dropwave, -5.12, 5.12, 2, -1.0),
            "levy-10": (levy, -10.0, 10.0, 10, 0.0), "beam": (beam, 0.0, 1.0, 1, -5.94239633614588)}

if __name__ == "__main__":
    name, journals, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
    f, lo, hi, d, optimum = PROBLEMS[name]
    regrets = []
    for seed in range(10):
        records = [json.loads(l) for l in open(f"{journals}/seed{seed}/journal.jsonl")][1:]
        noise = statistics.pstdev([r["observed"]["objective"] - r["clean"]["objective"] for r in records])
        init = [r for r in records if r["phase"] == "init"]
        X = torch.tensor([r["x"] for r in init])
        clean = torch.tensor([r["clean"]["objective"] for r in init])
        Y = torch.tensor([r["observed"]["objective"] for r in init])
        g = torch.Generator().manual_seed(seed)
        while X.shape[0] < budget:
            U = (X - lo) / (hi - lo)
            model = SingleTaskGP(U, (-Y).unsqueeze(-1), outcome_transform=Standardize(m=1))
            fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
            acq = LogExpectedImprovement(model, best_f=(-Y).max())
            u, _ = optimize_acqf(acq, bounds=torch.stack([torch.zeros(d), torch.ones(d)]), q=1, num_restarts=10, raw_samples=512)
            x = lo + (hi - lo) * u
            c = f(x)
            X = torch.cat([X, x]); clean = torch.cat([clean, c])
            Y = torch.cat([Y, c + noise * torch.randn(1, generator=g)])
        regrets.append(clean.min().item() - optimum)
        print(f"{name} seed {seed}: regret {regrets[-1]:.6g}", flush=True)
    m = statistics.mean(regrets); se = statistics.stdev(regrets) / math.sqrt(len(regrets))
    print(f"{name} budget {budget}: reference regret {m:.4g} ± {se:.2g} (10 seeds)")
