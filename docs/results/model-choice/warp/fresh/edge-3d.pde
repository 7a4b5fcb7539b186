# A harmonic field of three variables whose maximum lies inside an edge of the box. Written for
# issue 51's warp (model-choice §8) after its variants were chosen and before any run; not
# changed after.
problem "edge-3d"
var x in [0, 1], y in [0, 1], z in [0, 1]
field T(x, y, z) = 0.3*x*y + exp(0.7*z)*cos(0.7*(x - 0.3))
pde laplacian(T) = 0
maximize T
optimum 2.14953200                   # at (0.60638, 1, 1)
noise added variance 1% of range
budget 25, init 10 sobol
method physics-gp
