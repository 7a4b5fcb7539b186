# A plate nobody tuned for (session 21): conductivity growing across it, a uniform source,
# edges at different temperatures.
problem "conduction-plate"

var x in [0, 2], y in [0, 1]
field T(x, y)
fn k(x, y) = 1 + x*y
pde div(k(x, y)*grad(T)) = -6
maximize T

oracle fdm {
  grid 257 x 129
  T(x, 0) = 0.5*x
  T(x, 1) = sin(2*x)
  T(0, y) = 0
  T(2, y) = y*(sin(4) + 1 - y) + (1 - y)
}

noise added variance 1% of range
budget 25, init 10 sobol
