# Salomon (d = 10): written for the NeuralBO width question (issue 42) before any run.
problem "salomon-10"
const d = 10
var x[d] in [-100, 100]
minimize 1 - cos(2*pi*sqrt(sum(i, x[i]^2))) + 0.1*sqrt(sum(i, x[i]^2))
optimum 0
budget 100, init 10 sobol
method neural-bo { width 500, depth 1 }
