# Simionescu (d = 2) with its flower-shaped constraint.
# Source: thesis §4.3.2 (Neural-CBO synthetic benchmarks, Table 4.1: d = 2, one constraint);
# definition from Simionescu's test problem: r_T = 1, r_S = 0.2, n = 8. atan2(x, y) replaces
# atan(x / y): cos(8 theta) is the same for both and atan2 is defined at y = 0.
# The benchmark's constraints are black boxes: each is written through a field, so that
# pinnbo learns it from its values as the literature's methods do (a constraint on the
# variables alone would be known and computed, docs/dsl.md).
problem "simionescu"

var x in [-1.25, 1.25], y in [-1.25, 1.25]
minimize 0.1*x*y
field g_flower(x, y) = x^2 + y^2
subject to flower: g_flower <= (1 + 0.2*cos(8*atan2(x, y)))^2
optimum -0.072625                            # at (0.84852813, -0.84852813) and its mirror

noise added variance 1% of range
budget 100, init 10 sobol
method neural-cbo
