"""The derivation scripts' shared helpers (fresh-pdes/, biharmonic-oscillatory/,
targets-trend/): a field's optimum over its box, and an expression in the `.pde` syntax.

The optimum is a multi-start L-BFGS-B from the best 40 of 200,000 uniform points (seed 0).
Needs sympy, numpy and scipy (a throwaway environment)."""
import numpy as np
import sympy as sp
from scipy.optimize import minimize


def optimum(expr, variables, bounds, sense):
    """(the optimal value, its point) of `expr` over the box `bounds`."""
    sign = 1 if sense == "minimize" else -1
    f = sp.lambdify(variables, sign * expr, "numpy")
    lo, hi = np.array(bounds, dtype=float).T
    points = lo + (hi - lo) * np.random.default_rng(0).random((200_000, len(variables)))
    values = f(*points.T)
    runs = [minimize(lambda p: f(*p), points[i], bounds=bounds, method="L-BFGS-B",
                     options={"ftol": 1e-15, "gtol": 1e-12}) for i in np.argsort(values)[:40]]
    best = min(runs, key=lambda r: r.fun)
    return sign * best.fun, best.x


def dsl(expr):
    """`expr` as a `.pde` file writes it."""
    return sp.sstr(expr).replace("**", "^")
