# A rod obeying a Helmholtz equation with an unknown wavenumber: u'' + k^2 u = 0, k = 3.3.
# Written for issue 51 before any run; not changed after.
problem "helmholtz-rod"
var x in [0, 2]
param k in [1, 6]
field u(x) = cos(3.3*x) + 0.4*sin(3.3*x)
pde d(u, x, 2) + k^2*u = 0
minimize u
noise added variance 1% of range
budget 15, init 6 sobol
