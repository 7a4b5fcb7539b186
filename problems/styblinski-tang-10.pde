# Styblinski–Tang (d = 10) with the PDE sum_i df/dx_i = sum_i (2 x_i^3 - 16 x_i + 5/2).
# Source: thesis appendix C.1.1 (PINN-BO synthetic benchmarks, §5.4.2).
problem "styblinski-tang-10"

var x[10] in [-5, 5]
field f(x) = 0.5 * sum(i, x[i]^4 - 16*x[i]^2 + 5*x[i])
pde sum(i, d(f, x[i])) = sum(i, 2*x[i]^3 - 16*x[i] + 2.5)
minimize f
optimum -391.661656                           # 10 * -39.1661656 at x_i = -2.903534

noise added variance 1% of range
budget 100, init 10 sobol
method pinn-bo
