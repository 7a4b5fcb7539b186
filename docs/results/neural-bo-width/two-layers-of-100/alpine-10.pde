# Alpine No. 1 (d = 10): written for the NeuralBO width question (issue 42) before any run.
problem "alpine-10"
const d = 10
var x[d] in [-10, 10]
minimize sum(i, abs(x[i]*sin(x[i]) + 0.1*x[i]))
optimum 0
budget 100, init 10 sobol
method neural-bo { width 100, depth 2 }
