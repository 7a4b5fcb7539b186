# A damped rod with two unknown constants: u'' + c u' = k, the experiment c = 1, k = 2.
# Written for issue 51 before any run; not changed after.
problem "damped-rod"
var x in [0, 2]
param c in [0.2, 3]
param k in [0.5, 6]
field u(x) = 2*exp(-x) + 2*x - 1
pde d(u, x, 2) + c*d(u, x) = k
minimize u
noise added variance 1% of range
budget 15, init 6 sobol
