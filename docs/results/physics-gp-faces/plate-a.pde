# An unseen plate (written for this check, not shipped): Laplace's equation, other edges.
problem "plate-a"
var x in [0, 1], y in [0, 2]
field T(x, y)
pde laplacian(T) = 0
maximize T
oracle fdm {
  grid 129 x 257
  T(x, 0) = 4*x*(1 - x)
  T(x, 2) = cos(3*x) + x
  T(0, y) = exp(-y) + 0.3*y*cos(2*y)
  T(1, y) = sin(2*y) + 0.5*cos(5*y)
}
budget 25, init 10 sobol
