# Wrong physics, a missing term: the pde's source leaves out -5 sin(2x) sin(y).
# Written for issue 38 before any run; not changed after.
problem "missing-term"
var x in [0, 2], y in [0, 2]
field u(x, y) = sin(2*x)*sin(y) + 0.3*(x - 1)^2
pde laplacian(u) = 0.6
minimize u
optimum -0.4568024953079282              # at (2, pi/2), by optima.py
noise added variance 1% of range
budget 25, init 8 sobol
