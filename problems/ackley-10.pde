# Ackley (d = 10), unconstrained.
# Source: thesis §3.5.2 (NeuralBO synthetic benchmarks, d = 10, 20, 50, 100); definition and
# domain [-32.768, 32.768]^d from the sfu.ca test-function library cited there.
problem "ackley-10"

const d = 10
var x[d] in [-32.768, 32.768]
minimize -20*exp(-0.2*sqrt(sum(x^2)/d)) - exp(sum(cos(2*pi*x))/d) + 20 + e
optimum 0

noise added variance 1% of range
budget 200, init 10 sobol
method neural-bo { width 500, depth 2, lambda 0.01, nu 1 }
