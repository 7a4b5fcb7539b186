"""How many evaluations of each run repeat an earlier point (within 1e-6 of the box, in every
coordinate scaled to [0, 1]), and each run's final regret, from a bench's run folders.

    python repeats.py BENCH_OUT PROBLEM.pde METHOD
"""
import glob, json, re, sys

out, problem_file, method = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(problem_file).read()
bounds = [tuple(map(float, b)) for b in re.findall(r"in \[([-0-9.e]+), ([-0-9.e]+)\]", text)]
optimum = float(re.search(r"^optimum\s+(\S+)", text, re.M).group(1))
sense = -1.0 if re.search(r"^maximize", text, re.M) else 1.0
name = re.search(r'^problem "([^"]+)"', text, re.M).group(1)
total_repeats = total = 0
for journal in sorted(glob.glob(f"{out}/{name}/{method}/seed*/journal.jsonl")):
    records = [json.loads(line) for line in open(journal)][1:]
    units = [[(v - lo) / (hi - lo) for v, (lo, hi) in zip(r["x"], bounds)] for r in records]
    repeats = sum(
        any(max(abs(a - b) for a, b in zip(u, v)) <= 1e-6 for v in units[:i])
        for i, u in enumerate(units)
    )
    values = [(r["clean"] or r["observed"])["objective"] for r in records if r["observed"]]
    regret = min(sense * v for v in values) - sense * optimum
    total_repeats += repeats
    total += len(records)
    seed = journal.split("/")[-2]
    print(f"{seed}: {repeats} of {len(records)} evaluations repeat an earlier point; regret {regret:.3e}")
print(f"all: {total_repeats} of {total}")
