# A harmonic field of four variables whose maximum lies on an edge of the box, inside it in
# two of the variables. Written for issue 51's warp (model-choice §8) before any run; not
# changed after.
problem "ridge-4d"
var x1 in [0, 1], x2 in [0, 1], x3 in [0, 1], x4 in [0, 1]
field T(x1, x2, x3, x4) = cos(1.2*(x1 - 0.4))*cos(0.9*(x2 - 0.55))*cosh(1.5*x3) + 0.2*x3*x4
pde laplacian(T) = 0
maximize T
optimum 2.55240962                   # at (0.4, 0.55, 1, 1)
noise added variance 1% of range
budget 25, init 10 sobol
method physics-gp
