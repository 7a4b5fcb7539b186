# A simulated experiment must state each param's true value; an unknown name is refused.
var x in [0, 1], y in [0, 1]
param c in [0.2, 10] log
field T(x, y)
pde div((1 + c*x)*grad(T)) = -1
maximize T
oracle fdm {
  T(x, 0) = 0
  T(x, 1) = 0
  T(0, y) = 0
  T(1, y) = 0
  param cc = 3
}
