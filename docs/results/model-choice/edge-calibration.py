"""Calibration of each run's final model on the membrane (§6): z = (truth − mean)/std on a
21 × 11 grid, split into the band within 0.05 of the box's edge and the interior.

    pinnbo bench docs/results/smooth-sources/membrane.pde --methods physics-gp,gp-ei \
      --seeds 10 --budget 25 --jobs 2 --out RUNS
    python3 edge-calibration.py RUNS          # with `pinnbo` on the PATH"""
import json, math, subprocess, sys, glob
def truth(x, y): return -1.2*(x*x+y*y) + 0.6*math.exp(0.8*x)*math.cos(0.8*y) + 0.9*y
nx, ny = 21, 11
pts = [(2*i/(nx-1), j/(ny-1)) for i in range(nx) for j in range(ny)]
for method in ["physics-gp", "gp-ei"]:
    agg = {"edge": [], "interior": []}
    for run in sorted(glob.glob(f"{sys.argv[1]}/membrane/{method}/seed*")):
        args = ["pinnbo", "predict", run, "--json"]
        for x, y in pts: args += ["--at", f"x={x},y={y}"]
        out = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
        for (x, y), p in zip(pts, out["points"]):
            m, s = p["objective"]["mean"], p["objective"]["std"]
            region = "edge" if min(x/2, 1-x/2, y, 1-y) < 0.051 else "interior"
            agg[region].append(((truth(x, y)-m)/s, s, abs(truth(x, y)-m)))
    for region, v in agg.items():
        n = len(v)
        rmsz = math.sqrt(sum(z*z for z, _, _ in v)/n)
        cover = sum(abs(z) <= 2 for z, _, _ in v)/n
        print(f"{method:10s} {region:8s} n={n:4d} rms z {rmsz:.2f}  |z|<=2 {cover:.2f}  mean std {sum(s for _, s, _ in v)/n:.3f}  mean |err| {sum(e for _, _, e in v)/n:.3f}")
