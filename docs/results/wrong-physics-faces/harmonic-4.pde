# A harmonic function of four variables: the pde is right and its minimum lies on the box's
# faces. Written for issue 38 before any run; not changed after.
problem "harmonic-4"
var x1 in [0, 1], x2 in [0, 1], x3 in [0, 1], x4 in [0, 1]
field u(x1, x2, x3, x4) = x1^2 - x2^2 + x3*x4 - 0.6*x3 + 0.2*x2 - 0.4*x1*x2
pde laplacian(u) = 0
minimize u
optimum -1.44                                # at (0.2, 1, 1, 0)
noise added variance 1% of range
budget 30, init 8 sobol
