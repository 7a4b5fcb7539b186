# Michalewicz (d = 5, m = 10) with the PDE  h . grad f - f = 0: problems/michalewicz-30.pde with
# d = 5, its known optimum and budget 25, written to test physics-gp's check of the pde's
# targets on a problem it was not designed on.
# Source: thesis appendix C.1.1 (PINN-BO synthetic benchmarks, §5.4.2). The coefficient printed
# there, h_i = [cot x_i + 2 x_i (2m - 1) cot(i x_i^2 / pi)]^-1, does not make the PDE hold for
# Michalewicz's f; differentiating f gives h_i = [cot x_i + (4 m i x_i / pi) cot(i x_i^2 / pi)]^-1
# (docs/problems.md). h is singular where sin x_i = 0 or tan(i x_i^2 / pi) = 0: residual points
# there are dropped.
problem "michalewicz-5"

const m = 10
var x[5] in [0, pi]
fn h(i, t) = 1 / (cos(t)/sin(t) + 4*m*i*t / (pi*tan(i*t^2/pi)))
field f(x) = -sum(i, sin(x[i]) * sin(i*x[i]^2/pi)^(2*m))
pde sum(i, h(i, x[i]) * d(f, x[i])) - f = 0
minimize f
optimum -4.687658                             # the known minimum for d = 5

noise added variance 1% of range
budget 25, init 10 sobol
