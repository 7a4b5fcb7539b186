"""Reduces run.sh's folders: simple regret of q = 1, 4, 8 at equal evaluations and at equal
wall-clock, mean ± s.e. over seeds, with one-sided Welch t-tests of q > 1 against q = 1.

    python reduce.py OUT [CUTOFF_SECONDS ...]
"""
import json
import math
import sys
from pathlib import Path

try:
    from scipy.stats import ttest_ind
except ImportError:  # the table without p-values
    ttest_ind = None

OPTIMUM = {"dropwave": -1.0, "levy-10": 0.0}


def mean_se(values):
    n = len(values)
    m = sum(values) / n
    var = sum((v - m) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return m, math.sqrt(var / n)


def p_better(a, b):
    """One-sided p that a's mean regret is lower than b's."""
    if ttest_ind is None or len(a) < 2:
        return float("nan")
    return ttest_ind(a, b, equal_var=False, alternative="less").pvalue


def runs(folder):
    for log in sorted(folder.glob("seed*.log")):
        start = float(log.with_suffix(".start").read_text())
        events = [tuple(map(float, l.split())) for l in log.read_text().splitlines()]
        yield [(t - start, v) for t, v in sorted(events)]


def best_by(events, optimum, until=math.inf, evaluations=math.inf):
    seen = [v for k, (t, v) in enumerate(events) if t <= until and k < evaluations]
    return (min(seen) - optimum) if seen else math.nan


def main():
    out = Path(sys.argv[1])
    cutoffs = [float(c) for c in sys.argv[2:]] or [6.0, 12.0]
    for problem in sorted(p.name for p in out.iterdir() if p.is_dir()):
        optimum = OPTIMUM[problem]
        qs = {q: list(runs(out / problem / f"q{q}")) for q in (1, 4, 8)}
        print(f"\n## {problem}\n")
        header = ["q", "runs", "wall-clock (s)", "regret at the budget"]
        header += [f"regret at {c:g} s" for c in cutoffs]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        base = None
        for q, rs in qs.items():
            if not rs:
                continue
            walls = [r[-1][0] for r in rs]
            columns = [[best_by(r, optimum) for r in rs]]
            columns += [[best_by(r, optimum, until=c) for r in rs] for c in cutoffs]
            base = base or columns
            cells = [str(q), str(len(rs)), "%.1f ± %.1f" % mean_se(walls)]
            for col, ref in zip(columns, base):
                shown = [v for v in col if not math.isnan(v)]
                if len(shown) < len(col):
                    cells.append(f"{len(col) - len(shown)} runs had no value yet")
                    continue
                m, se = mean_se(shown)
                cell = f"{m:.3g} ± {se:.2g}"
                if q != 1:
                    cell += f" (p {p_better(shown, ref):.2g})"
                cells.append(cell)
            print("| " + " | ".join(cells) + " |")


main()
