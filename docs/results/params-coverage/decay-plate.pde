# A plate whose field decays with an unknown rate: laplacian(u) = r u, the experiment r = 1.
# Written for issue 51 before any run; not changed after.
problem "decay-plate"
var x in [0, 1], y in [0, 1]
param r in [0.1, 4] log
field u(x, y) = exp(0.6*x + 0.8*y) + 0.5*exp(-0.8*x + 0.6*y)
pde laplacian(u) = r*u
minimize u
noise added variance 1% of range
budget 20, init 8 sobol
