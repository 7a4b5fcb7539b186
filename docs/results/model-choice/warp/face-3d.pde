# A harmonic field of three variables whose maximum lies inside a face. Written for issue 51's
# warp (model-choice §8) before any run; not changed after.
problem "face-3d"
var x in [0, 2], y in [0, 2], z in [0, 1]
field T(x, y, z) = sin(1.1*x + 0.3)*sin(1.4*y + 0.2)*sinh(sqrt(3.17)*z)
pde laplacian(T) = 0
maximize T
optimum 2.88197970                   # at (1.15527, 0.97914, 1)
noise added variance 1% of range
budget 25, init 10 sobol
method physics-gp
