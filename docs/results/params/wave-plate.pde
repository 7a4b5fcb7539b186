# A Helmholtz field of unknown wavenumber k (true value sqrt(13)): two nearly equal minima.
# Written for issue 38 before any run; not changed after.
problem "wave-plate"
var x in [0, 2], y in [0, 1.5]
param k in [1, 10] log
field u(x, y) = sin(3*x)*cos(2*y)
pde laplacian(u) + k^2*u = 0
minimize u
optimum -1                               # at (pi/2, 0), by optima.py
noise added variance 1% of range
budget 25, init 8 sobol
