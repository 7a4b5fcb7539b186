"""pinnbo's methods against the reference library, as `pinnbo bench` tests its methods: for
each method, one-sided Welch tests that it has the lower final regret than the reference on
each problem, Benjamini–Hochberg at 0.05 over that method's problems (marked *).
Needs scipy (run it from the throwaway reference environment).

    python against.py reference.csv physics-gp,gp-ei,gp-ucb RESULTS.csv...

The RESULTS files are pinnbo's (`pinnbo bench` results.csv files); each (problem, method) is
read from the first file that has it.
"""
import sys, math, statistics
from scipy import stats
sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/..")
from compare import benjamini_hochberg, final, summary  # noqa: E402  (the same reading of a results.csv)

reference, pinnbo = final(sys.argv[1]), {}
for path in sys.argv[3:]:
    for key, values in final(path).items():
        pinnbo.setdefault(key, values)
for method in sys.argv[2].split(","):
    rows = []
    for (problem, m), ref in sorted(reference.items()):
        if (problem, method) in pinnbo:
            ours = pinnbo[(problem, method)]
            p = stats.ttest_ind(ours, ref, equal_var=False, alternative="less").pvalue
            rows.append((problem, summary(ours), summary(ref), p))
    q = benjamini_hochberg([row[3] for row in rows])
    print(f"== {method} against the reference")
    for (problem, (m, se), (rm, rse), p), qi in zip(rows, q):
        mark = "*" if qi <= 0.05 else ""
        print(f"{problem:20s} {m:10.4g} ± {se:8.2g}   reference {rm:10.4g} ± {rse:8.2g}   p {p:.3g}  q {qi:.3g}{mark}")
