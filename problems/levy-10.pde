# Levy (d = 10), unconstrained.
# Source: thesis §3.5.2 (NeuralBO synthetic benchmarks, d = 10, 20, 50, 100); definition and
# domain [-10, 10]^d from the sfu.ca test-function library cited there.
problem "levy-10"

const d = 10
var x[d] in [-10, 10]
fn w(t) = 1 + (t - 1)/4
minimize sin(pi*w(x[1]))^2
       + sum(i in 1..d-1, (w(x[i]) - 1)^2 * (1 + 10*sin(pi*w(x[i]) + 1)^2))
       + (w(x[d]) - 1)^2 * (1 + sin(2*pi*w(x[d]))^2)
optimum 0

noise added variance 1% of range
budget 200, init 10 sobol
method neural-bo { width 500, depth 2, lambda 0.01, nu 1 }
