# Gas transmission compressor design (d = 4, one constraint).
# Source: thesis §4.3.3 (Neural-CBO real-world tasks), from Kumar et al. (2020); bounds from there.
# The benchmark's constraints are black boxes: each is written through a field, so that
# pinnbo learns it from its values as the literature's methods do (a constraint on the
# variables alone would be known and computed, docs/dsl.md).
problem "gas-transmission"

var x1 in [20, 50], x2 in [1, 10], x3 in [20, 50], x4 in [0.1, 60]
minimize 8.61e5*sqrt(x1)*x2*x3^(-2/3)*x4^(-1/2) + 3.69e4*x3 + 7.72e8/x1*x2^0.219 - 765.43e6/x1
field g(x1, x2, x3, x4) = x4/x2^2 + 1/x2^2 - 1
subject to g <= 0
optimum 2964895.4173                         # Kumar et al. (2020)

noise added variance 1% of range
budget 100, init 10 sobol
method neural-cbo { width 30, depth 2, lr 0.001 }   # the thesis: width m = T, L = 2, learning rate 0.001
