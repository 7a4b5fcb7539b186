"""Final regrets of two benches compared seed by seed (the same seed shares its initial design
and noise across benches): per (problem, method) in both, the means, how many seeds got
better and worse, and a two-sided paired t-test. Needs scipy.

    python paired.py OLD/results.csv NEW/results.csv
"""
import csv, sys
from scipy import stats
def final(path):
    last = {}
    for r in csv.DictReader(open(path)):
        k = (r['problem'], r['method'], int(r['seed'])); e = int(r['evaluation'])
        if k not in last or e > last[k][0]: last[k] = (e, float(r['regret_plus_violation']))
    return {k: v for k, (e, v) in last.items()}
a, b = final(sys.argv[1]), final(sys.argv[2])
keys = sorted({(p, m) for (p, m, s) in a} & {(p, m) for (p, m, s) in b})
for p, m in keys:
    seeds = sorted(s for (q, n, s) in a if (q, n) == (p, m) and (q, n, s) in b)
    x = [a[(p, m, s)] for s in seeds]; y = [b[(p, m, s)] for s in seeds]
    t = stats.ttest_rel(y, x)
    better = sum(yy < xx - 1e-12 for xx, yy in zip(x, y)); worse = sum(yy > xx + 1e-12 for xx, yy in zip(x, y))
    print(f"{p:24s} {m:12s} {sum(x)/len(x):.4g} -> {sum(y)/len(y):.4g}  better {better} worse {worse}  paired two-sided p {t.pvalue:.3g}")
