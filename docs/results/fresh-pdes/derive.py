"""How the fresh problems' sources and optima were derived (run once, before any run of a method).

Each field is written first; its pde's right-hand side is the operator applied to it
symbolically, and its optimum a multi-start L-BFGS-B from the best of 200,000 uniform points.
Needs sympy, numpy and scipy (a throwaway environment: python3 -m venv /tmp/sym &&
/tmp/sym/bin/pip install sympy numpy scipy). `pinnbo eval FILE --at ...` prints each file's pde
residual at a point: 0 to rounding when the source is right.
"""
import os
import sys

import sympy as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from optimum import dsl, optimum  # noqa: E402

x, y, z, t = sp.symbols("x y z t")
R = sp.Rational


def laplacian(f, variables):
    return sum(sp.diff(f, v, 2) for v in variables)


def show(name, source, field, variables, bounds, sense):
    print(f"{name}: source {dsl(source)}")
    print(f"{name}: optimum {optimum(field, variables, bounds, sense)}")


# heat-rod: u_t - 0.05 u_xx = q
u = -sp.exp(-(x - R(19, 10))**2 / R(15, 100) - (t - R(12, 10))**2 / R(3, 10)) \
    + R(3, 10) * sp.sin(2 * x) * sp.cos(t)
show("heat-rod", sp.diff(u, t) - R(5, 100) * sp.diff(u, x, 2), u, (x, t), [(0, 3), (0, 2)], "minimize")

# poisson-3d: laplacian(u) = s
u = sp.exp(-((x - R(3, 10))**2 + (y - R(6, 10))**2 + (z - R(4, 10))**2) / R(8, 100)) \
    + R(1, 2) * x * y * z + R(2, 10) * sp.sin(3 * x + 2 * y)
show("poisson-3d", laplacian(u, (x, y, z)), u, (x, y, z), [(0, 1)] * 3, "maximize")

# helmholtz: laplacian(u) + 25 u = 0 (no source: checked, not printed)
u = sp.sin(3 * x + R(4, 10)) * sp.sin(4 * y + 1) + R(7, 10) * sp.cos(5 * y) \
    + R(1, 2) * sp.sin(4 * x) * sp.cos(3 * y - R(1, 2))
assert sp.simplify(laplacian(u, (x, y)) + 25 * u) == 0
show("helmholtz", sp.Integer(0), u, (x, y), [(0, 2), (0, 2)], "minimize")

# sturm: -((1 + x^2/4) u')' + (1 + x) u = f
u = sp.sin(2 * x) * sp.exp(-R(3, 10) * x) + R(4, 10) * sp.cos(5 * x + 1)
show("sturm", -sp.diff((1 + x**2 / 4) * sp.diff(u, x), x) + (1 + x) * u, u, (x,), [(0, 4)], "minimize")

# plume: w_x + 0.3 w_y - 0.01 laplacian(w) = s
w = sp.exp(-(y - R(1, 2) - R(2, 10) * sp.sin(3 * x))**2 / (R(2, 100) + R(1, 10) * x)) \
    * (R(2, 10) + 4 * x) * sp.exp(-3 * x)
show("plume", sp.diff(w, x) + R(3, 10) * sp.diff(w, y) - R(1, 100) * laplacian(w, (x, y)), w,
     (x, y), [(0, 1), (0, 1)], "maximize")
