# A plate whose boundary data jump at one corner, where the maximum is approached. Written for
# issue 51's warp (model-choice §8) after its variants were chosen and before any run; not
# changed after.
problem "cliff-plate"
var x in [0, 1], y in [0, 1]
field T(x, y)
pde laplacian(T) = 0
maximize T
oracle fdm {
  grid 129 x 129
  T(x, 0) = 2 - x
  T(x, 1) = x*(1 - x)
  T(0, y) = 2 + 4*y^2
  T(1, y) = 1 - y
}
budget 25, init 10 sobol
method physics-gp
