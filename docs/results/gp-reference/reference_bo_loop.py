"""The reference library's GP-BO loop from pinnbo's own initial designs: for each seed, the
initial points and their noisy values are read from pinnbo's journal, then each step fits the
library's default SingleTaskGP, maximizes analytic LogEI (optimize_acqf, 10 restarts from 512
raw samples), and observes the closed-form objective plus Gaussian noise of pinnbo's standard
deviation (estimated from the journal's observed - clean). Prints each seed's final simple regret;
with CURVES=FILE set, also appends each evaluation's regret so far (the least noise-free value
yet, less the optimum) to FILE as results.csv rows (method `reference`).

A problem with no closed form here (the plates, whose oracle is pinnbo's FDM solver) is observed
through `pinnbo eval FILE --at ... --json` (the binary named by $PINNBO, default
target/release/pinnbo), FILE being the one the journals name; its optimum and sense come from the
bench's results.csv beside the journals' folder."""
import sys, os, json, math, statistics, subprocess, csv
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
def styblinski_tang(x):
    return 0.5 * (x**4 - 16*x**2 + 5*x).sum(-1)
PROBLEMS = {"ackley-10": (ackley, -32.768, 32.768, 10, 0.0), "dropwave": (dropwave, -5.12, 5.12, 2, -1.0),
            "levy-10": (levy, -10.0, 10.0, 10, 0.0), "beam": (beam, 0.0, 1.0, 1, -5.94239633614588),
            "styblinski-tang-10": (styblinski_tang, -5.0, 5.0, 10, -391.661656)}
# Problems observed through `pinnbo eval`: variable names, lower and upper bounds, sense.
EVALUATED = {name: (("x", "y"), (0.0, 0.0), (2*math.pi, 2*math.pi), "maximize") for name in ("heat1", "heat2", "heat3")}
EVALUATED.update({  # docs/results/unseen/
    "new-beam": (("x",), (0.0,), (2.0,), "maximize"),
    "source-plate": (("x", "y"), (0.0, 0.0), (1.0, 1.0), "maximize"),
    "conduction-plate": (("x", "y"), (0.0, 0.0), (2.0, 1.0), "maximize"),
    # docs/results/fresh-pdes/ (closed forms, evaluated the same way)
    "heat-rod": (("x", "t"), (0.0, 0.0), (3.0, 2.0), "minimize"),
    "helmholtz": (("x", "y"), (0.0, 0.0), (2.0, 2.0), "minimize"),
    "poisson-3d": (("x", "y", "z"), (0.0, 0.0, 0.0), (1.0, 1.0, 1.0), "maximize"),
    "sturm": (("x",), (0.0,), (4.0,), "minimize"),
    "plume": (("x", "y"), (0.0, 0.0), (1.0, 1.0), "maximize"),
    # docs/results/wrong-physics-faces/
    "sink-plate": (("x", "y"), (0.0, 0.0), (1.0, 1.0), "minimize"),
    "harmonic-4": (("x1", "x2", "x3", "x4"), (0.0,) * 4, (1.0,) * 4, "minimize"),
    # docs/results/params/
    "reaction-rod": (("x",), (0.0,), (3.0,), "minimize"),
    "diffusion-plate": (("x", "y"), (0.0, 0.0), (1.0, 1.0), "maximize"),
    "wave-plate": (("x", "y"), (0.0, 0.0), (2.0, 1.5), "minimize"),
    "two-constants": (("x", "y"), (0.0, 0.0), (2.0, 1.5), "minimize"),
    "conductivity-plate": (("x", "y"), (0.0, 0.0), (1.0, 1.0), "maximize"),
    "missing-term": (("x", "y"), (0.0, 0.0), (2.0, 2.0), "minimize"),
    "wrong-coefficient": (("x", "y"), (0.0, 0.0), (2.0, 1.5), "maximize"),
    "wrong-sign": (("x",), (0.0,), (3.0,), "minimize"),
})

def evaluated(name, journals):
    """The objective as minimized (f = -T for a maximized T), through pinnbo eval, and the
    minimized objective's optimum read from the bench's results.csv."""
    names, lo, hi, sense = EVALUATED[name]
    header = json.loads(open(f"{journals}/seed0/journal.jsonl").readline())
    sign = -1.0 if sense == "maximize" else 1.0
    binary = os.environ.get("PINNBO", "target/release/pinnbo")
    def f(x):
        values = []
        for row in x.tolist():
            at = ",".join(f"{n}={v!r}" for n, v in zip(names, row))
            out = subprocess.run([binary, "eval", header["file"], "--at", at, "--json"],
                                 check=True, capture_output=True, text=True).stdout
            values.append(sign * json.loads(out)["objective"])
        return torch.tensor(values)
    results = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(journals))), "results.csv")
    first = next(r for r in csv.DictReader(open(results)) if r["problem"] == name)
    best, regret = float(first["best_so_far"]), float(first["regret"])
    optimum = sign * (best + regret if sense == "maximize" else best - regret)
    return f, torch.tensor(lo), torch.tensor(hi), len(names), optimum, sign

if __name__ == "__main__":
    name, journals, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    if name in EVALUATED:
        f, lo, hi, d, optimum, sign = evaluated(name, journals)
    else:
        (f, lo, hi, d, optimum), sign = PROBLEMS[name], 1.0
    regrets = []
    for seed in range(seeds):
        records = [json.loads(l) for l in open(f"{journals}/seed{seed}/journal.jsonl")][1:]
        for r in records:  # a problem without noise journals no separate clean value
            r["clean"] = r["clean"] or r["observed"]
        noise = statistics.pstdev([r["observed"]["objective"] - r["clean"]["objective"] for r in records])
        init = [r for r in records if r["phase"] == "init"]
        X = torch.tensor([r["x"] for r in init])
        clean = sign * torch.tensor([r["clean"]["objective"] for r in init])
        Y = sign * torch.tensor([r["observed"]["objective"] for r in init])
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
        if os.environ.get("CURVES"):
            with open(os.environ["CURVES"], "a") as out:
                so_far = torch.cummin(clean, 0).values.tolist()
                for t, least in enumerate(so_far, 1):
                    out.write(f"{name},reference,{seed},{t},,{least - optimum!r},{least - optimum!r},\n")
        print(f"{name} seed {seed}: regret {regrets[-1]:.6g}", flush=True)
    m = statistics.mean(regrets); se = statistics.stdev(regrets) / math.sqrt(len(regrets))
    print(f"{name} budget {budget}: reference regret {m:.4g} ± {se:.2g} ({seeds} seeds)")
