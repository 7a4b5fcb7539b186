# Steady-state heat, boundary set 3: where is the plate hottest?
# Source: thesis §5.4.3.1 "Optimizing Steady-State Temperature" (PINN-BO), boundary conditions 3,
# each edge function read in the coordinate along that edge (docs/problems.md).
problem "heat3"

var x in [0, 2*pi], y in [0, 2*pi]
field T(x, y)
pde laplacian(T) = 0
maximize T

oracle fdm {
  grid 257 x 257
  T(x, 0)    = (sin(x) + cos(2*x))*sqrt(3*x) + x^2 + exp(sin(x))
  T(x, 2*pi) = (exp(sin(x)) + sqrt(3*x))*cos(x) + (sin(x)^2 + x^2)*exp(cos(x))
  T(0, y)    = (sqrt(2*y) + sin(y))*(cos(2*y) + y^3) + exp(cos(y))
  T(2*pi, y) = (sin(y) + cos(2*y))*(sqrt(2*y) + y^3) + exp(sin(y))
}

budget 100, init 10 sobol
method pinn-bo { width 100, depth 3, activation tanh, residual_points 500 }
