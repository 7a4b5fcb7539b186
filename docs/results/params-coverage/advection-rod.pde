# Steady advection and diffusion with both constants unknown: D u'' - v u' = -1, the
# experiment D = 0.5, v = 1. Written for issue 51 before any run; not changed after.
problem "advection-rod"
var x in [0, 1.5]
param D in [0.1, 2] log
param v in [0.2, 3] log
field u(x) = x - 0.05*exp(2*x)
pde D*d(u, x, 2) - v*d(u, x) = -1
maximize u
noise added variance 1% of range
budget 15, init 6 sobol
