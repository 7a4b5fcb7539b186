# Zakharov (d = 10): written for the NeuralBO width question (issue 42) before any run.
problem "zakharov-10"
const d = 10
var x[d] in [-5, 10]
minimize sum(i, x[i]^2) + sum(i, 0.5*i*x[i])^2 + sum(i, 0.5*i*x[i])^4
optimum 0
budget 100, init 10 sobol
method neural-bo { width 500, depth 1 }
