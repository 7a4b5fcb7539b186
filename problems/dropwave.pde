# Drop-Wave (d = 2) with its rotational-symmetry PDE.
# Source: thesis appendix C.1.1 (PINN-BO synthetic benchmarks, §5.4.2); domain as in the
# standard definition (infinity77 / sfu test-function libraries).
problem "dropwave"

var x[2] in [-5.12, 5.12]
field f(x) = -(1 + cos(12*sqrt(x[1]^2 + x[2]^2))) / (0.5*(x[1]^2 + x[2]^2) + 2)
pde x[1]*d(f, x[2]) - x[2]*d(f, x[1]) = 0     # f depends on the radius only
minimize f
optimum -1

noise added variance 1% of range
budget 100, init 10 sobol
method pinn-bo
