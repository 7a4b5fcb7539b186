# An anisotropic operator with two unknown constants (c = 1.6, r = 15.4): two modes pin both.
# The same problem with its params' true values written in (the pde the experiment obeys).
problem "two-constants"
var x in [0, 2], y in [0, 1.5]
field u(x, y) = cos(3*x)*cos(2*y) + 0.6*cos(x)*cos(3*y)
pde d(u, x, 2) + (1.6)*d(u, y, 2) + (15.4)*u = 0
minimize u
optimum -1.2953389258803474              # at (0, 1.27218), by optima.py
noise added variance 1% of range
budget 25, init 8 sobol
