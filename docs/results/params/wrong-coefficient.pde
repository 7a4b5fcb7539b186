# Wrong physics, a wrong coefficient: the field obeys laplacian(u) + 13 u = 0, the pde says 9.
# Written for issue 38 before any run; not changed after.
problem "wrong-coefficient"
var x in [0, 2], y in [0, 1.5]
field u(x, y) = cos(3*x)*cos(2*y)
pde laplacian(u) + 9*u = 0
maximize u
optimum 1                                # at (0, 0), by optima.py
noise added variance 1% of range
budget 25, init 8 sobol
