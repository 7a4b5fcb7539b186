"""Issue 38's params and wrong-physics bench, read back: final regrets per method (mean,
standard error, Welch tests both ways of physics-gp against each baseline, Benjamini-Hochberg
over all), physics-gp against physics-gp given the true constants, each seed's fitted params
against the truth, and a step's cost with params against without. Needs scipy:

    python analyse.py RUNS KNOWN [REFERENCE.csv]

RUNS and KNOWN are `pinnbo bench` output folders (README.md); REFERENCE.csv, if given, holds
`problem,seed,regret` rows of the reference library's loop."""
import csv, json, math, os, statistics, sys
from collections import defaultdict
from scipy import stats

TRUTH = {"reaction-rod": {"k": 2.5}, "diffusion-plate": {"D": 2.0},
         "wave-plate": {"k": math.sqrt(13)}, "two-constants": {"c": 1.6, "r": 15.4},
         "conductivity-plate": {"c": 3.0}}


def finals(folder):
    """{(problem, method): {seed: regret}} at each run's last evaluation."""
    last = {}
    for r in csv.DictReader(open(os.path.join(folder, "results.csv"))):
        key = (r["problem"], r["method"], int(r["seed"]))
        if key not in last or int(r["evaluation"]) > last[key][0]:
            last[key] = (int(r["evaluation"]), float(r["regret"]))
    out = defaultdict(dict)
    for (p, m, s), (_, regret) in last.items():
        out[(p, m)][s] = regret
    return out


def mean_se(v):
    return statistics.mean(v), statistics.stdev(v) / math.sqrt(len(v))


def seconds_per_step(folder, problem):
    """physics-gp's mean proposing seconds per model-based step."""
    total, steps = 0.0, 0
    for seed in range(10):
        path = os.path.join(folder, problem, "physics-gp", f"seed{seed}", "journal.jsonl")
        for line in list(open(path))[1:]:
            r = json.loads(line)
            if r.get("phase") != "init":
                total += r.get("propose_seconds", 0.0)
                steps += 1
    return total / max(steps, 1)


def bh(pvalues):
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    q, running = [0.0] * len(pvalues), 1.0
    for rank in range(len(order), 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * len(pvalues) / rank)
        q[i] = running
    return q


def main():
    runs, known = finals(sys.argv[1]), finals(sys.argv[2])
    reference = defaultdict(dict)
    if len(sys.argv) > 3:
        for r in csv.DictReader(open(sys.argv[3])):
            reference[r["problem"]][int(r["seed"])] = float(r["regret"])
    problems = sorted({p for p, _ in runs}, key=lambda p: (p not in TRUTH, p))
    print("| problem | physics-gp | known constants | gp-ei | gp-ucb | reference |")
    print("|---|---|---|---|---|---|")
    tests = []
    for p in problems:
        cell = lambda d: "%.3g ± %.2g" % mean_se(list(d.values())) if d else "—"
        pg = runs[(p, "physics-gp")]
        print(f"| {p} | {cell(pg)} | {cell(known.get((p, 'physics-gp'), {}))} | "
              f"{cell(runs[(p, 'gp-ei')])} | {cell(runs[(p, 'gp-ucb')])} | {cell(reference.get(p, {}))} |")
        for base, d in [("gp-ei", runs[(p, "gp-ei")]), ("gp-ucb", runs[(p, "gp-ucb")]),
                        ("reference", reference.get(p, {}))]:
            if len(d) < 2:
                continue
            a, b = list(pg.values()), list(d.values())
            t = stats.ttest_ind(a, b, equal_var=False)
            # one-sided both ways: physics-gp better (baseline greater), physics-gp worse
            better = t.pvalue / 2 if t.statistic < 0 else 1 - t.pvalue / 2
            tests.append((p, base, better, 1 - better))
    q_better = bh([t[2] for t in tests] + [t[3] for t in tests])
    n = len(tests)
    print("\n| problem | baseline | p (physics-gp lower) | q | p (physics-gp higher) | q |")
    print("|---|---|---|---|---|---|")
    for i, (p, base, better, worse) in enumerate(tests):
        print(f"| {p} | {base} | {better:.3g} | {q_better[i]:.3g} | {worse:.3g} | {q_better[n + i]:.3g} |")
    print("\n| problem | param | truth | fitted, by seed | within 1.5x | cost per step, params / known |")
    print("|---|---|---|---|---|---|")
    for p, truth in TRUTH.items():
        ratio = seconds_per_step(sys.argv[1], p) / seconds_per_step(sys.argv[2], p)
        for name, value in truth.items():
            fitted = []
            for seed in range(10):
                s = json.load(open(os.path.join(sys.argv[1], p, "physics-gp", f"seed{seed}", "summary.json")))
                fitted.append(s["parameters"][name]["value"])
            inside = sum(1 for f in fitted if value / 1.5 <= f <= value * 1.5)
            shown = ", ".join("%.3g" % f for f in fitted)
            print(f"| {p} | {name} | {value:.4g} | {shown} | {inside} of 10 | {ratio:.2f} |")


main()
