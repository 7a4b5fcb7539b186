# A harmonic field whose maximum lies near a corner, where the field is smooth. Written for
# issue 51's warp (model-choice §8) before any run; not changed after.
problem "corner-smooth"
var x in [0, 1], y in [0, 1.5]
field T(x, y) = exp(x)*cos(y) + 0.3*x*y
pde laplacian(T) = 0
maximize T
optimum 2.73485327                   # at (1, 0.11059)
noise added variance 1% of range
budget 25, init 10 sobol
method physics-gp
