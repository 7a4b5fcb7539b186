# Written before any run (session 39): a plate whose conductivity grows along both
# sides, heated uniformly, its edges held at different temperatures (a simulator).
problem "graded-plate"

var x in [0, 1], y in [0, 1.5]
field T(x, y)
fn k(x, y) = 1 + 0.5*x + 0.5*y
pde div(k(x, y)*grad(T)) = -5
maximize T

oracle fdm {
  grid 129 x 193
  T(x, 0) = 0.2*x
  T(x, 1.5) = 0.5*sin(3*x)
  T(0, y) = 0
  T(1, y) = 0.2 + (0.5*sin(3) - 0.2)*y/1.5
}

noise added variance 1% of range
budget 25, init 10 sobol
