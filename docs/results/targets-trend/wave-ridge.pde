# Written before any run (session 46): a standing wave on a tilted ridge, under a Helmholtz
# operator with a source.
problem "wave-ridge"

var x in [0, 2], y in [-1, 2]
field u(x, y) = -(x + 0.5*y - 1)^2 + 0.6*cos(3*x)*cos(0.5*y) + 0.2*x*y
pde laplacian(u) + 9*u = -9*x^2 - 36*x*y/5 + 18*x - 9*y^2/4 + 9*y - 3*cos(3*x)*cos(y/2)/20 - 23/2
maximize u
optimum 0.432805953977507

noise added variance 1% of range
budget 25, init 10 sobol
