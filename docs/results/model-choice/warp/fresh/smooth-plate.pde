# A plate whose boundary data meet at every corner (no jump); its maximum lies inside an edge.
# Written for issue 51's warp (model-choice §8) after its variants were chosen and before any
# run; not changed after.
problem "smooth-plate"
var x in [0, 1], y in [0, 1]
field T(x, y)
pde laplacian(T) = 0
maximize T
oracle fdm {
  grid 129 x 129
  T(x, 0) = sin(pi*x)*(1 + x)
  T(x, 1) = 0.5*sin(2*pi*x) + x
  T(0, y) = 0.3*sin(pi*y)
  T(1, y) = y^2 + 0.4*sin(pi*y)
}
budget 25, init 10 sobol
method physics-gp
