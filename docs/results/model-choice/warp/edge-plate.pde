# A harmonic field whose maximum lies inside an edge, away from every corner. Written for
# issue 51's warp (model-choice §8) before any run; not changed after.
problem "edge-plate"
var x in [0, 1], y in [0, 1]
field T(x, y) = cos(2*(x - 0.6))*cosh(2*y) + 0.4*x*y
pde laplacian(T) = 0
maximize T
optimum 4.00751299                   # at (0.62659, 1)
noise added variance 1% of range
budget 25, init 10 sobol
method physics-gp
