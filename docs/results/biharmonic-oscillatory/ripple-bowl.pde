# Written before any run (session 46): a Rastrigin-type bowl of ripples, exact under a
# Helmholtz operator with a source; many local minima.
problem "ripple-bowl"

var x in [-2, 2], y in [-2, 2]
field u(x, y) = (x - 0.4)^2 + (y + 0.3)^2 - cos(4*x) - cos(4*y) + 0.6*sin(2.4*x + 3.2*y + 0.7)
pde laplacian(u) + 16*u = 16*((x - 0.4)^2 + (y + 0.3)^2) + 4
minimize u
optimum -1.5225884927547992

noise added variance 1% of range
budget 25, init 10 sobol
