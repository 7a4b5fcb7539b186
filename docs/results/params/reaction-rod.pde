# A rod whose reaction rate is unknown: u'' + k^2 u = 0.3 k^2 x, k fitted from the data.
# Written for issue 38 before any run; not changed after.
problem "reaction-rod"
var x in [0, 3]
param k in [0.5, 8] log
field u(x) = cos(2.5*x) + 0.3*x              # the experiment: k = 2.5
pde d(u, x, 2) + k^2*u = 0.3*k^2*x
minimize u
optimum -0.630217559135868               # at x = 1.20852, by optima.py
noise added variance 1% of range
budget 15, init 5 sobol
