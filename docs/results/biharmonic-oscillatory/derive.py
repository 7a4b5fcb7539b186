"""How the three problems' sources and optima were derived (run once, before any run of a method).

The fields are written first; each pde's right-hand side is the operator applied to the field
symbolically (asserted equal to the file's), each optimum a multi-start L-BFGS-B from the best
of 200,000 uniform points. Needs sympy, numpy and scipy in a throwaway environment.
"""
import os
import sys

import sympy as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from optimum import dsl, optimum  # noqa: E402

x, y = sp.symbols("x y")
R = sp.Rational


def laplacian(f):
    return sp.diff(f, x, 2) + sp.diff(f, y, 2)


# clamped-plate: biharmonic(w) = 32 (a uniform load and two boundary-moment terms)
w = R(1, 2) * ((x - R(55, 100))**2 + (y - R(4, 10))**2)**2 \
    + R(8, 100) * x * sp.exp(R(3, 2) * y) * sp.cos(R(3, 2) * x) \
    - R(3, 10) * y * sp.sin(2 * x) * sp.exp(-2 * y)
assert sp.simplify(laplacian(laplacian(w)) - 32) == 0
print("clamped-plate", *optimum(w, (x, y), [(0, 1.5), (0, 1)], "minimize"))

# ripple-bowl: laplacian(u) + 16 u = 16((x - 0.4)^2 + (y + 0.3)^2) + 4
u = (x - R(4, 10))**2 + (y + R(3, 10))**2 - sp.cos(4 * x) - sp.cos(4 * y) \
    + R(6, 10) * sp.sin(R(24, 10) * x + R(32, 10) * y + R(7, 10))
assert sp.simplify(laplacian(u) + 16 * u - (16 * ((x - R(4, 10))**2 + (y + R(3, 10))**2) + 4)) == 0
print("ripple-bowl", *optimum(u, (x, y), [(-2, 2), (-2, 2)], "minimize"))

# loaded-plate: biharmonic(w) = 47.30888 sin(1.2x + 0.3) sin(2.5y + 0.2)
w = R(8, 10) * sp.sin(R(12, 10) * x + R(3, 10)) * sp.sin(R(25, 10) * y + R(2, 10)) \
    + R(15, 100) * (x**3 - 3 * x * y**2) - R(3, 10) * (x**2 + y**2) * x
q = R(4730888, 100000) * sp.sin(R(12, 10) * x + R(3, 10)) * sp.sin(R(25, 10) * y + R(2, 10))
assert sp.simplify(laplacian(laplacian(w)) - q) == 0
print("loaded-plate", *optimum(w, (x, y), [(0, 2), (0, 1)], "maximize"))
