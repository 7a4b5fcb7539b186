# Written before any run (session 39): a membrane under uniform pressure with a
# harmonic boundary load. The pde's source is a constant.
problem "membrane"

var x in [0, 2], y in [0, 1]
field u(x, y) = -1.2*(x^2 + y^2) + 0.6*exp(0.8*x)*cos(0.8*y) + 0.9*y
pde laplacian(u) = -4.8
maximize u
optimum 0.7993922396901808

noise added variance 1% of range
budget 25, init 10 sobol
