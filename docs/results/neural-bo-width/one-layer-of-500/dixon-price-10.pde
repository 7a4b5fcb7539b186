# Dixon-Price (d = 10): written for the NeuralBO width question (issue 42) before any run.
problem "dixon-price-10"
const d = 10
var x[d] in [-10, 10]
minimize (x[1] - 1)^2 + sum(i in 2..d, i*(2*x[i]^2 - x[i-1])^2)
optimum 0
budget 100, init 10 sobol
method neural-bo { width 500, depth 1 }
