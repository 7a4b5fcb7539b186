# A plate nobody tuned for (session 21): a localized heat source, cold edges.
problem "source-plate"

var x in [0, 1], y in [0, 1]
field T(x, y)
pde laplacian(T) = -40*exp(-((x - 0.7)^2 + (y - 0.3)^2)/0.01)
maximize T

oracle fdm {
  grid 129 x 129
  T(x, 0) = 0
  T(x, 1) = 0
  T(0, y) = 0
  T(1, y) = 0
}

noise added variance 1% of range
budget 25, init 10 sobol
