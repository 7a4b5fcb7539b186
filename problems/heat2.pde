# Steady-state heat, boundary set 2: where is the plate hottest?
# Source: thesis §5.4.3.1 "Optimizing Steady-State Temperature" (PINN-BO), boundary conditions 2,
# each edge function read in the coordinate along that edge (docs/problems.md).
problem "heat2"

var x in [0, 2*pi], y in [0, 2*pi]
field T(x, y)
pde laplacian(T) = 0
maximize T

oracle fdm {
  grid 257 x 257
  T(x, 0)    = sin(x)*cos(2*x) + x^2*sqrt(3*x) + exp(sin(x))
  T(x, 2*pi) = exp(sin(x))*sqrt(3*x) + x^2*cos(x)*sin(x)^2 + exp(cos(x))
  T(0, y)    = sqrt(2*y)*sin(y) + y^3*cos(2*y) + exp(cos(y))
  T(2*pi, y) = sin(y)*cos(2*y) + y^3*sqrt(2*y) + exp(sin(y))
}

budget 100, init 10 sobol
method pinn-bo { width 100, depth 3, activation tanh, residual_points 500 }
