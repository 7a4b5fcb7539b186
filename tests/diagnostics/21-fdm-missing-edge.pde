var x in [0, 1], y in [0, 1]
field T(x, y)
pde laplacian(T) = 0
maximize T
oracle fdm {
  grid 65 x 65
  T(x, 0) = sin(pi*x)
  T(x, 1) = 0
  T(0, y) = 0
}
