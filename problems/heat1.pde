# Steady-state heat, boundary set 1: where is the plate hottest?
# Source: thesis §5.4.3.1 "Optimizing Steady-State Temperature" (PINN-BO), boundary conditions 1.
# The thesis writes each edge's data in the wrong variable (T(x, 0) as a function of y); we read
# every edge function in the coordinate along that edge, and take |.| under the square root of
# the right edge, whose argument goes negative (docs/problems.md).
problem "heat1"

var x in [0, 2*pi], y in [0, 2*pi]
field T(x, y)
pde laplacian(T) = 0
maximize T

oracle fdm {
  grid 257 x 257
  T(x, 0)    = 5*sin(x) + sqrt(1 + x)
  T(x, 2*pi) = x*sin(3*cos(x) + 2*exp(x)*sin(x))
  T(0, y)    = 10*cos(y) + y*exp(sqrt(y^2 + sin(y)))
  T(2*pi, y) = 3*sqrt(abs(exp(y*exp(-y))*sin(y) + cos(3*y)*cos(3*y)))
}

budget 100, init 10 sobol
method pinn-bo { width 100, depth 3, activation tanh, residual_points 500 }
