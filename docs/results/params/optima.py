"""The optimum of each closed-form problem here: a dense grid, then L-BFGS-B from its best
points. Run with any Python that has numpy and scipy: python optima.py"""
import numpy as np
from scipy.optimize import minimize

PROBLEMS = {
    "reaction-rod": (lambda x: np.cos(2.5 * x[0]) + 0.3 * x[0], [(0, 3)], 1),
    "diffusion-plate": (
        lambda p: np.exp(-3 * ((p[0] - 0.4) ** 2 + (p[1] - 0.6) ** 2)) + 0.5 * p[0] * p[1],
        [(0, 1), (0, 1)], -1),
    "wave-plate": (lambda p: np.sin(3 * p[0]) * np.cos(2 * p[1]), [(0, 2), (0, 1.5)], 1),
    "two-constants": (
        lambda p: np.cos(3 * p[0]) * np.cos(2 * p[1]) + 0.6 * np.cos(p[0]) * np.cos(3 * p[1]),
        [(0, 2), (0, 1.5)], 1),
    "missing-term": (
        lambda p: np.sin(2 * p[0]) * np.sin(p[1]) + 0.3 * (p[0] - 1) ** 2, [(0, 2), (0, 2)], 1),
    "wrong-coefficient": (
        lambda p: np.cos(3 * p[0]) * np.cos(2 * p[1]), [(0, 2), (0, 1.5)], -1),
    "wrong-sign": (lambda x: np.cosh(2 * (x[0] - 1.3)) - 0.2 * x[0], [(0, 3)], 1),
}

for name, (f, box, sign) in PROBLEMS.items():
    g = lambda p: sign * f(p)
    axes = [np.linspace(lo, hi, 801 if len(box) == 2 else 20001) for lo, hi in box]
    grid = np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], axis=1)
    values = np.array([g(p) for p in grid])
    best = None
    for i in np.argsort(values)[:20]:
        r = minimize(g, grid[i], bounds=box, method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12})
        if best is None or r.fun < best.fun:
            best = r
    print(f"{name}: optimum {sign * best.fun!r} at {best.x}")
