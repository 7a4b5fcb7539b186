var x in [0, 1], y in [0, 1]
field T(x, y)
pde laplacian(T) = 0
maximize T
oracle fdm {
  grid 1 x 1
  T(x, 0) = 0
  T(x, 1) = 0
  T(0, y) = 0
  T(1, y) = 0
}
