# Written before any run (session 39): a heated cube; the source is a constant, the
# field's homogeneous part harmonic.
problem "heated-cube"

var x in [0, 1], y in [0, 1], z in [0, 1]
field u(x, y, z) = 2 - x^2 - 2*y^2 - 0.5*z^2 + 0.8*x*z + 0.5*sin(2*x)*exp(2*y - 2)
pde laplacian(u) = -7
maximize u
optimum 2.0067359379244665

noise added variance 1% of range
budget 25, init 10 sobol
