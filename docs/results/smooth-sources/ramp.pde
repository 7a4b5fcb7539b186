# Written before any run (session 39): a source that grows across the plate (not a
# quadratic's image), with a harmonic part.
problem "ramp-source"

var x in [0, 2], y in [0, 1]
field u(x, y) = -x^3/3 - 1.5*(x^2 + y^2) + 0.4*exp(y)*sin(x) + 2*x
pde laplacian(u) = -6 - 2*x
maximize u
optimum 0.8275026219323511

noise added variance 1% of range
budget 25, init 10 sobol
