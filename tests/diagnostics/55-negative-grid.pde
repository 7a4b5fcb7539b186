var x in [0, 1], y in [0, 1]
field u(x, y)
pde laplacian(u) = 1
minimize u
oracle fdm {
  grid -3 x 9
  u(x, 0) = 0
  u(x, 1) = 0
  u(0, y) = 0
  u(1, y) = 0
}
