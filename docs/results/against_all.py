"""One method against every other method run on the same problems: one-sided Welch tests that
its mean final regret is lower, Benjamini–Hochberg at 0.05 over all the tests (as `pinnbo bench`
tests within one bench). Needs scipy (the throwaway reference environment).

    python against_all.py METHOD RESULTS.csv..   # the method's runs are read from every file;
                                                 # where two files hold a (problem, method), the
                                                 # later one counts
"""
import statistics, sys
from scipy import stats
from compare import benjamini_hochberg, final, summary

method, runs = sys.argv[1], {}
for path in sys.argv[2:]:
    runs.update(final(path))
tests = []
for (problem, other), y in sorted(runs.items()):
    x = runs.get((problem, method))
    if other == method or x is None:
        continue
    p = stats.ttest_ind(y, x, equal_var=False, alternative="greater").pvalue
    tests.append((problem, other, x, y, p))
qs = benjamini_hochberg([t[4] for t in tests])
print(f"| problem | {method} | against | its mean | p | q |")
print("|---|---|---|---|---|---|")
for (problem, other, x, y, p), q in zip(tests, qs):
    (m, se), (n, _) = summary(x), summary(y)
    star = " *" if q <= 0.05 else ""
    print(f"| {problem} | {m:.4g} ± {se:.2g} | {other} | {n:.4g} | {p:.3g} | {q:.3g}{star} |")
