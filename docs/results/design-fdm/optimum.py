"""The optimum of each design problem, computed independently of any optimizer: the best
feasible value of `pinnbo eval` on a dense grid of designs, refined six times on a grid
around the best. Usage: python3 optimum.py PINNBO FILE.pde N (N points per variable)."""
import itertools
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

pinnbo, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path).read()
box = [(m[0], float(eval(m[1])), float(eval(m[2])))
       for m in re.findall(r"(\w+) in \[([^,\]]+), ([^\]]+)\]", text.split("coord")[0])]
sign = -1.0 if re.search(r"^maximize", text, re.M) else 1.0


def value(point):
    at = ",".join(f"{name}={v!r}" for (name, _, _), v in zip(box, point))
    out = subprocess.run([pinnbo, "eval", path, "--at", at, "--json"],
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    feasible = all(c["value"] <= 0 for c in r["constraints"])
    return sign * r["objective"] if feasible else float("inf")


def search(ranges):
    axes = [[lo + (hi - lo) * i / (n - 1) for i in range(n)] for lo, hi in ranges]
    points = list(itertools.product(*axes))
    with ThreadPoolExecutor(2) as pool:
        values = list(pool.map(value, points))
    k = min(range(len(points)), key=values.__getitem__)
    return points[k], values[k]


ranges = [(lo, hi) for _, lo, hi in box]
best, v = search(ranges)
for _ in range(6):
    ranges = [(max(lo, b - 2 * (hi0 - lo0) / (n - 1)), min(hi, b + 2 * (hi0 - lo0) / (n - 1)))
              for b, (lo0, hi0), (_, lo, hi) in zip(best, ranges, box)]
    best, v = search(ranges)
print(json.dumps({"problem": path, "optimum": sign * v,
                  "at": {name: b for (name, _, _), b in zip(box, best)}}))
