"""physics-gp against gp-ei per problem: one-sided Welch and exact signed-rank tests (H1:
gp-ei's regret greater; zero differences dropped), each Benjamini-Hochberg over the problems
read, as `pinnbo bench` reports them. Needs scipy.

    python stats.py physics.csv[,smooth-sources.csv] [stretched.csv]

The second argument's rows replace the first's for the same (problem, method, seed).
"""
import csv, sys
from scipy import stats
def final(paths):
    last = {}
    for path in paths:
        for r in csv.DictReader(open(path)):
            k = (r['problem'], r['method'], int(r['seed'])); e = int(r['evaluation'])
            if k not in last or e > last[k][0]: last[k] = (e, float(r['regret']))
    return {k: v for k, (e, v) in last.items()}
def bh(ps):
    n = len(ps); order = sorted(range(n), key=lambda i: ps[i]); q = [0]*n; prev = 1.0
    for rank, i in reversed(list(enumerate(order, 1))):
        prev = min(prev, ps[i] * n / rank); q[i] = prev
    return q
old = final(sys.argv[1].split(','))
new = final(sys.argv[2].split(',')) if len(sys.argv) > 2 and sys.argv[2] else {}
data = dict(old)
for (p, m, s), v in new.items():
    data[(p, m, s)] = v
probs = sorted({p for (p, m, s) in data if m == 'gp-ei'})
rows = []
for p in probs:
    seeds = sorted(s for (q, m, s) in data if q == p and m == 'gp-ei' and (p, 'physics-gp', s) in data)
    a = [data[(p, 'physics-gp', s)] for s in seeds]; b = [data[(p, 'gp-ei', s)] for s in seeds]
    w = stats.ttest_ind(b, a, equal_var=False, alternative='greater').pvalue
    d = [y - x for x, y in zip(a, b) if y != x]
    sr = stats.wilcoxon(d, alternative='greater', method='exact').pvalue if d else 1.0
    rows.append((p, len(seeds), sum(a)/len(a), sum(b)/len(b), w, sr, len(d)))
qw = bh([r[4] for r in rows]); qs = bh([r[5] for r in rows])
for r, a, b in zip(rows, qw, qs):
    print(f"{r[0]:18s} n={r[1]} pgp {r[2]:.4g} gpei {r[3]:.4g} welch p {r[4]:.3g} q {a:.3g}{'*' if a<0.05 else ''} paired p {r[5]:.3g} (pairs {r[6]}) q {b:.3g}{'*' if b<0.05 else ''}")
