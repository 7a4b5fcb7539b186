# A plate heated by a spot, whose conductivity grows along x at an unknown rate c (true 3);
# simulated by finite differences. Written for issue 38 before any run; not changed after.
problem "conductivity-plate"
var x in [0, 1], y in [0, 1]
param c in [0.2, 10] log
field T(x, y)
pde div((1 + c*x)*grad(T)) = -20*exp(-((x - 0.6)^2 + (y - 0.4)^2)/0.02)
maximize T
oracle fdm {
  grid 129 x 129
  T(x, 0) = 0.2*x
  T(x, 1) = 0.2*x
  T(0, y) = 0
  T(1, y) = 0.2
  param c = 3
}
noise added variance 1% of range
budget 25, init 8 sobol
