# A rod whose reaction rate is unknown: u'' + k^2 u = 0.3 k^2 x, k fitted from the data.
# The same problem with its params' true values written in (the pde the experiment obeys).
problem "reaction-rod"
var x in [0, 3]
field u(x) = cos(2.5*x) + 0.3*x              # the experiment: k = 2.5
pde d(u, x, 2) + (2.5)^2*u = 0.3*(2.5)^2*x
minimize u
optimum -0.630217559135868               # at x = 1.20852, by optima.py
noise added variance 1% of range
budget 15, init 5 sobol
