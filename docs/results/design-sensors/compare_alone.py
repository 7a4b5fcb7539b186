"""Design problems (issue 52): each method with sensors (sensed/results.csv) against gp-ei on
the objective alone (alone/results.csv, the same problems without their sensors lines, the
same seeds and initial designs): one-sided Welch tests both ways, Benjamini-Hochberg over
all of them. Needs scipy (a throwaway environment outside the repository).

    python compare_alone.py sensed/results.csv alone/results.csv
"""
import csv, math, statistics, sys
from scipy import stats
def final(path):
    last = {}
    for r in csv.DictReader(open(path)):
        k = (r['problem'].replace('-alone', ''), r['method'], r['seed']); e = int(r['evaluation'])
        if k not in last or e > last[k][0]: last[k] = (e, float(r['regret_plus_violation']))
    out = {}
    for (p, m, s), (e, v) in last.items(): out.setdefault((p, m), []).append(v)
    return out
sensed, alone = final(sys.argv[1]), final(sys.argv[2])
rows, ps = [], []
for p in ['detector-rod', 'cooling-fin', 'plate-source', 'conductivity']:
    base = alone[(p, 'gp-ei')]
    for m in ['physics-gp', 'gp-ei']:
        v = sensed[(p, m)]
        better = stats.ttest_ind(base, v, equal_var=False, alternative='greater').pvalue
        worse = stats.ttest_ind(v, base, equal_var=False, alternative='greater').pvalue
        rows.append((p, m, statistics.mean(v), statistics.mean(base), better, worse)); ps += [better, worse]
order = sorted(range(len(ps)), key=lambda i: ps[i]); q = [0.0]*len(ps); run = 1.0
for rank in range(len(ps), 0, -1):
    i = order[rank-1]; run = min(run, ps[i]*len(ps)/rank); q[i] = run
print("| problem | method with sensors | its mean | gp-ei alone | ratio | q (lower) | q (higher) |")
print("|---|---|---|---|---|---|---|")
for k, (p, m, a, b, pb, pw) in enumerate(rows):
    qb, qw = q[2*k], q[2*k+1]
    mark = lambda x: f"{x:.3f}" + ("*" if x <= 0.05 else "")
    print(f"| {p} | {m} | {a:.3g} | {b:.3g} | {a/b:.3g} | {mark(qb)} | {mark(qw)} |")
