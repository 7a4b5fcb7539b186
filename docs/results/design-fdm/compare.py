"""Design problems with fdm oracles (issue 52): each method with sensors (SENSED/results.csv),
and the reference library on the objective alone (REFERENCE: reference_design.py's output),
against gp-ei on the objective alone (ALONE/results.csv: the same problems without their
sensors lines, the same seeds and initial designs). One-sided Welch tests both ways,
Benjamini-Hochberg over all of them. Needs scipy (a throwaway environment outside the
repository).

    python compare.py SENSED/results.csv ALONE/results.csv REFERENCE.log
"""
import csv
import os
import re
import statistics
import sys

from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare import benjamini_hochberg  # noqa: E402  (docs/results/compare.py)


def final(path):
    """(problem, method) -> each seed's final regret plus violation."""
    last = {}
    for r in csv.DictReader(open(path)):
        key = (r["problem"].replace("-alone", ""), r["method"], r["seed"])
        e = int(r["evaluation"])
        if key not in last or e > last[key][0]:
            last[key] = (e, float(r["regret_plus_violation"]))
    out = {}
    for (p, m, _), (_, v) in sorted(last.items()):
        out.setdefault((p, m), []).append(v)
    return out


def reference(path):
    out = {}
    for line in open(path):
        m = re.match(r"(\S+?)(?:-alone)?\.pde seed \d+: regret (\S+)", line)
        if m:
            out.setdefault((m[1], "reference"), []).append(float(m[2]))
    return out


sensed, alone = final(sys.argv[1]), final(sys.argv[2])
if len(sys.argv) > 3:
    sensed.update(reference(sys.argv[3]))
problems = sorted({p for p, _ in alone})
rows, ps = [], []
for p in problems:
    base = alone[(p, "gp-ei")]
    for m in ["physics-gp", "gp-ei", "reference"]:
        v = sensed.get((p, m))
        if not v:
            continue
        better = stats.ttest_ind(base, v, equal_var=False, alternative="greater").pvalue
        worse = stats.ttest_ind(v, base, equal_var=False, alternative="greater").pvalue
        se = statistics.stdev(v) / len(v) ** 0.5
        rows.append((p, m, statistics.mean(v), se, statistics.mean(base), better, worse))
        ps += [better, worse]
q = benjamini_hochberg(ps)
print("| problem | method | mean regret ± s.e. | gp-ei alone | ratio | q (lower) | q (higher) |")
print("|---|---|---|---|---|---|---|")
for k, (p, m, a, se, b, _, _) in enumerate(rows):
    mark = lambda x: f"{x:.3f}" + ("*" if x <= 0.05 else "")
    name = {"physics-gp": "physics-gp + sensors", "gp-ei": "gp-ei + sensors",
            "reference": "reference library, alone"}[m]
    print(f"| {p} | {name} | {a:.3g} ± {se:.2g} | {b:.3g} | {a / b:.3g} | "
          f"{mark(q[2 * k])} | {mark(q[2 * k + 1])} |")
