# Ackley (d = 5) with two constraints.
# Source: thesis §4.3.2 (Neural-CBO synthetic benchmarks, Table 4.1: d = 5, two constraints).
# The thesis does not print them; we use the standard pair of the constrained-BO literature
# (Eriksson & Poloczek, 2021): sum(x) <= 0 and ||x||_2 <= 5 on [-5, 10]^5.
# The benchmark's constraints are black boxes: each is written through a field, so that
# pinnbo learns it from its values as the literature's methods do (a constraint on the
# variables alone would be known and computed, docs/dsl.md).
problem "ackley-5-constrained"

const d = 5
var x[d] in [-5, 10]
minimize -20*exp(-0.2*sqrt(sum(x^2)/d)) - exp(sum(cos(2*pi*x))/d) + 20 + e
field g_sum(x) = sum(x)
field g_ball(x) = sqrt(sum(x^2))
subject to sum: g_sum <= 0
subject to ball: g_ball <= 5
optimum 0                                    # at the origin, which is feasible

noise added variance 1% of range
budget 100, init 10 sobol
method neural-cbo
