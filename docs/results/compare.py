"""Final regrets of two benches side by side, with one-sided Welch p-values that the second
is better and that it is worse, Benjamini–Hochberg at 0.05 over all of them (marked *).
Needs scipy (run it from the throwaway reference environment).

    python compare.py OLD/results.csv NEW/results.csv            # each (problem, method) in both
    python compare.py OLD/results.csv NEW/results.csv pinn-bo    # NEW's pinn-bo against every
                                                                 # method of OLD, per problem
"""
import csv, sys, math, statistics
from scipy import stats

def final(path):
    last = {}
    for r in csv.DictReader(open(path)):
        k = (r['problem'], r['method'], r['seed']); e = int(r['evaluation'])
        if k not in last or e > last[k][0]: last[k] = (e, float(r['regret_plus_violation']))
    out = {}
    for (p, m, s), (e, v) in last.items(): out.setdefault((p, m), []).append(v)
    return out

def summary(v): return statistics.mean(v), statistics.stdev(v) / math.sqrt(len(v))

def main():
    old, new = final(sys.argv[1]), final(sys.argv[2])
    method = sys.argv[3] if len(sys.argv) > 3 else None
    pairs = []  # (label, old values, new values)
    for (p, m), x in sorted(old.items()):
        if method is None and (p, m) in new:
            pairs.append((f"{p} {m}", x, new[(p, m)]))
        elif method is not None and (p, method) in new:
            pairs.append((f"{p} {method} against {m}", x, new[(p, method)]))
    tests = []
    for label, x, y in pairs:
        _, p_better = stats.ttest_ind(y, x, equal_var=False, alternative='less')
        _, p_worse = stats.ttest_ind(y, x, equal_var=False, alternative='greater')
        tests.append((label, *summary(x), *summary(y), p_better, p_worse))
    ps = sorted([(t[5], i, 'b') for i, t in enumerate(tests)] + [(t[6], i, 'w') for i, t in enumerate(tests)])
    m = len(ps); kmax = 0
    for r, (p, i, w) in enumerate(ps, 1):
        if p <= 0.05 * r / m: kmax = r
    rej = {(i, w) for r, (p, i, w) in enumerate(ps, 1) if r <= kmax}
    for i, t in enumerate(tests):
        print(f"{t[0]:40s} old {t[1]:.4g} ± {t[2]:.2g}  new {t[3]:.4g} ± {t[4]:.2g}  "
              f"p(better) {t[5]:.3g}{'*' if (i, 'b') in rej else ''} p(worse) {t[6]:.3g}{'*' if (i, 'w') in rej else ''}")


if __name__ == "__main__":
    main()
