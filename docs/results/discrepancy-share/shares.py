"""`check discrepancy` before and after the noise-aware share, from two bench folders (their
journals and results.csv): per problem, the steps whose share exceeds 1%, the steps searching
the faces, the mean final regret and the seeds better / worse.

    python3 shares.py BEFORE AFTER
"""
import csv, json, glob, sys, statistics
B, A = sys.argv[1], sys.argv[2]
WRONG = {'missing-term', 'wrong-sign', 'sink-plate'}
def finals(folder):
    last = {}
    for r in csv.DictReader(open(f'{folder}/results.csv')):
        key = (r['problem'], int(r['seed']))
        if key not in last or int(r['evaluation']) > last[key][0]:
            last[key] = (int(r['evaluation']), float(r['regret']))
    return {k: v[1] for k, v in last.items()}
def counts(folder, p):
    above = steps = faces = 0
    for j in glob.glob(f'{folder}/{p}/physics-gp/seed*/journal.jsonl'):
        for line in open(j):
            d = json.loads(line).get('diagnostics') or {}
            if 'discrepancy_share' in d:
                steps += 1; above += d['discrepancy_share'] > 0.01; faces += d.get('search') == 'faces'
    return above, steps, faces
fb, fa = finals(B), finals(A)
probs = sorted({k[0] for k in fb}, key=lambda p: (p in WRONG, p))
print('| problem | pde | share > 1% before → after (of steps) | faces before → after | mean regret before → after | seeds better / worse |')
print('|---|---|---|---|---|---|')
for p in probs:
    (ab, sb, cb), (aa, sa, ca) = counts(B, p), counts(A, p)
    rb = [fb[(p, s)] for s in range(10)]; ra = [fa[(p, s)] for s in range(10)]
    better = sum(a < b * (1 - 1e-9) for a, b in zip(ra, rb)); worse = sum(a > b * (1 + 1e-9) for a, b in zip(ra, rb))
    print(f"| {p} | {'wrong' if p in WRONG else 'exact'} | {ab}/{sb} → {aa}/{sa} | {cb} → {ca} | {statistics.mean(rb):.3g} → {statistics.mean(ra):.3g} | {better} / {worse} |")
