"""The reference loop's printed regrets (`NAME seed S: regret R` lines, from
../gp-reference/reference_bo_loop.py) as a bench-style results.csv with method `reference`,
one row per seed at the last evaluation, for ../compare.py.

    python to_csv.py BUDGET reference-*.txt > reference.csv
"""
import re, sys

budget = sys.argv[1]
print("problem,method,seed,evaluation,best_so_far,regret,regret_plus_violation,seconds")
for path in sys.argv[2:]:
    for line in open(path):
        m = re.match(r"(\S+) seed (\d+): regret (\S+)$", line.strip())
        if m:
            name, seed, regret = m.groups()
            print(f"{name},reference,{seed},{budget},,{regret},{regret},")
