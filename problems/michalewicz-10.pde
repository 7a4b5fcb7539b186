# Michalewicz (d = 10, m = 10), unconstrained.
# Source: thesis §3.5.2 (NeuralBO synthetic benchmarks); definition and domain [0, pi]^d from
# the sfu.ca test-function library cited there.
problem "michalewicz-10"

const m = 10
var x[10] in [0, pi]
minimize -sum(i, sin(x[i]) * sin(i*x[i]^2/pi)^(2*m))
optimum -9.66015

noise added variance 1% of range
budget 200, init 10 sobol
method neural-bo { width 500, depth 2, lambda 0.01, nu 1 }
