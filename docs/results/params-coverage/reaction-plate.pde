# A plate with an unknown reaction coefficient: laplacian(u) + a u = 0, the experiment a = 3.
# Written for issue 51 before any run; not changed after.
problem "reaction-plate"
var x in [0, 1.5], y in [0, 1]
param a in [0.5, 8]
field u(x, y) = sin(2*x)*cosh(y) + 0.3*cos(2*x)*cosh(y)
pde laplacian(u) + a*u = 0
minimize u
noise added variance 1% of range
budget 20, init 8 sobol
