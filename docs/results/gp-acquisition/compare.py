"""Two benches' final regrets side by side: for each (problem, method) in both results.csv
files, mean ± s.e. of the final regret plus violation, and one-sided Welch p-values that the
second is better and that it is worse, with Benjamini–Hochberg at 0.05 over all of them
(marked *). Needs scipy (run it from the throwaway reference environment).

    python compare.py OLD/results.csv NEW/results.csv
"""
import csv, sys, math, statistics
from scipy import stats
def final(path):
    rows = list(csv.DictReader(open(path)))
    last = {}
    for r in rows:
        k = (r['problem'], r['method'], r['seed']); e = int(r['evaluation'])
        if k not in last or e > last[k][0]: last[k] = (e, float(r['regret_plus_violation']))
    out = {}
    for (p, m, s), (e, v) in last.items(): out.setdefault((p, m), []).append(v)
    return out
a, b = final(sys.argv[1]), final(sys.argv[2])
tests = []
for k in sorted(a):
    if k not in b: continue
    x, y = a[k], b[k]
    t, p_worse = stats.ttest_ind(y, x, equal_var=False, alternative='greater')  # new worse
    _, p_better = stats.ttest_ind(y, x, equal_var=False, alternative='less')
    tests.append((k, statistics.mean(x), statistics.stdev(x)/math.sqrt(len(x)), statistics.mean(y), statistics.stdev(y)/math.sqrt(len(y)), p_better, p_worse))
ps = sorted([(t[5], i, 'b') for i, t in enumerate(tests)] + [(t[6], i, 'w') for i, t in enumerate(tests)])
m = len(ps); rej = set(); kmax = 0
for r, (p, i, w) in enumerate(ps, 1):
    if p <= 0.05 * r / m: kmax = r
for r, (p, i, w) in enumerate(ps, 1):
    if r <= kmax: rej.add((i, w))
for i, t in enumerate(tests):
    print(f"{t[0][0]:22s} {t[0][1]:8s} old {t[1]:.4g} ± {t[2]:.2g}  new {t[3]:.4g} ± {t[4]:.2g}  p(better) {t[5]:.3f}{'*' if (i,'b') in rej else ''} p(worse) {t[6]:.3f}{'*' if (i,'w') in rej else ''}")
