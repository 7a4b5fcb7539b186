# Qing (d = 10): written for the NeuralBO width question (issue 42) before any run.
problem "qing-10"
const d = 10
var x[d] in [-500, 500]
minimize sum(i, (x[i]^2 - i)^2)
optimum 0
budget 100, init 10 sobol
method neural-bo { width 100, depth 2 }
