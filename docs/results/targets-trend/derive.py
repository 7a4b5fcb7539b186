"""How the three fresh problems' sources and optima were derived (session 46, before any run
of a method, and before the targets' test at a trend was measured on them).

Fields first; each source is the operator applied to the field symbolically, each optimum a
multi-start L-BFGS-B from the best of 200,000 uniform points. Needs sympy, numpy and scipy.
"""
import os
import sys

import sympy as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from optimum import dsl, optimum  # noqa: E402

x, y, z = sp.symbols("x y z")
R = sp.Rational


def expanded(expr):
    return dsl(sp.expand(expr))


# reaction-bowl: laplacian(u) - 4 u = s (a screened Poisson field with a bowl)
u = R(3, 2) * ((x - R(6, 10))**2 + R(1, 2) * (y - R(3, 10))**2) \
    + R(4, 10) * sp.exp(-2 * x) * sp.cos(y) - R(3, 10) * sp.sin(2 * x + y)
print("reaction-bowl source:", expanded(sp.diff(u, x, 2) + sp.diff(u, y, 2) - 4 * u))
print("reaction-bowl", *optimum(u, (x, y), [(-1, 2), (-1, 1.5)], "minimize"))

# wave-ridge: laplacian(u) + 9 u = s (a standing wave on a tilted ridge)
u = -(x + R(1, 2) * y - 1)**2 + R(6, 10) * sp.cos(3 * x) * sp.cos(R(1, 2) * y) \
    + R(2, 10) * x * y
print("wave-ridge source:", expanded(sp.diff(u, x, 2) + sp.diff(u, y, 2) + 9 * u))
print("wave-ridge", *optimum(u, (x, y), [(0, 2), (-1, 2)], "maximize"))

# damped-rod-3d: laplacian(u) - 2 u = s in three variables, a shallow bowl with a ripple
u = (x - R(4, 10))**2 + (y - R(6, 10))**2 + R(1, 2) * (z - R(5, 10))**2 \
    + R(3, 10) * sp.sin(3 * x + 2 * z) * sp.cos(2 * y)
print("damped-3d source:", expanded(sp.diff(u, x, 2) + sp.diff(u, y, 2) + sp.diff(u, z, 2) - 2 * u))
print("damped-3d", *optimum(u, (x, y, z), [(0, 1)] * 3, "minimize"))
