# Wrong physics, a wrong sign: the field obeys u'' - 4u = 0.8x, the pde says u'' + 4u.
# Written for issue 38 before any run; not changed after.
problem "wrong-sign"
var x in [0, 3]
field u(x) = cosh(2*(x - 1.3)) - 0.2*x
pde d(u, x, 2) + 4*u = 0.8*x
minimize u
optimum 0.7350041542221681               # at x = 1.34992, by optima.py
noise added variance 1% of range
budget 15, init 5 sobol
