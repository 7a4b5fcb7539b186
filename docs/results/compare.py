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

def benjamini_hochberg(ps):
    """Each p-value's Benjamini–Hochberg q-value over the family `ps` (rejected at α when
    q <= α)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    q, running = [0.0] * len(ps), 1.0
    for rank in range(len(ps), 0, -1):
        i = order[rank - 1]
        running = min(running, ps[i] * len(ps) / rank)
        q[i] = running
    return q

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
    family = [(i, 'b') for i in range(len(tests))] + [(i, 'w') for i in range(len(tests))]
    q = benjamini_hochberg([tests[i][5 if w == 'b' else 6] for i, w in family])
    rej = {key for key, qi in zip(family, q) if qi <= 0.05}
    for i, t in enumerate(tests):
        print(f"{t[0]:40s} old {t[1]:.4g} ± {t[2]:.2g}  new {t[3]:.4g} ± {t[4]:.2g}  "
              f"p(better) {t[5]:.3g}{'*' if (i, 'b') in rej else ''} p(worse) {t[6]:.3g}{'*' if (i, 'w') in rej else ''}")


if __name__ == "__main__":
    main()
