"""How many of a bench's model-driven proposals lie on the box's edge (some coordinate at
its bound), and how many replaced a repeat by exploring, per problem and method (§5).

    pinnbo bench docs/results/smooth-sources/membrane.pde \
      docs/results/unseen/conduction-plate.pde --methods physics-gp,gp-ei --seeds 10 \
      --budget 25 --jobs 2 --out RUNS
    python3 edges.py RUNS"""
import glob, json, re, sys, collections

def bounds(pde):
    """The `var name in [lo, hi]` bounds of a problem file, in order (`param` lines not)."""
    text = "".join(l for l in open(pde) if l.lstrip().startswith("var "))
    return [(float(a), float(b)) for a, b in
            re.findall(r"\bin\s*\[\s*([-0-9.eE+]+)\s*,\s*([-0-9.eE+]+)\s*\]", text)]

counts = collections.defaultdict(lambda: [0, 0, 0])
for journal in sorted(glob.glob(sys.argv[1] + "/*/*/seed*/journal.jsonl")):
    problem, method = journal.split("/")[-4:-2]
    box = bounds(journal.replace("journal.jsonl", "journal.pde"))
    for line in open(journal).readlines()[1:]:
        record = json.loads(line)
        if record["phase"] != "step":
            continue
        c = counts[(problem, method)]
        c[0] += 1
        if len(box) != len(record["x"]):
            sys.exit(f"{journal}: {len(record['x'])} coordinates, but bounds read for {len(box)}")
        unit = [(v - lo) / (hi - lo) for v, (lo, hi) in zip(record["x"], box)]
        c[1] += min(min(u, 1 - u) for u in unit) < 1e-6
        c[2] += "explored_std" in (record.get("diagnostics") or {})
for (problem, method), (steps, edge, explored) in sorted(counts.items()):
    print(f"{problem:18s} {method:11s} on the edge {edge:3d} of {steps}, explored {explored}")
