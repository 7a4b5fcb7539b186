# Non-uniform Euler–Bernoulli beam: where is the displacement least?
# Source: thesis (Phan-Trong), §5.4.3.2 "Optimizing Beam Displacement" (PINN-BO, ch. 5).
# The thesis prints EI = e^x / rho(x) and rho, but neither the load q nor the boundary data.
# rho is exactly w''(x) of w(x) = sin(4 pi e^{2x}) + e^{2x} sin(20x) + 0.4x^3 + 0.2x^2, so
# EI w'' = e^x and q = (EI w'')'' = e^x; w(0), w(1) come from that w and the bending moment
# M = EI w'' is 1 at x = 0 and e at x = 1 (docs/problems.md). rho changes sign 26 times on
# [0, 1], so EI is singular there: the FDM reference solves the split form M'' = q, w'' = M/EI.
problem "beam"

var x in [0, 1]
field w(x)                                    # the displacement: expensive, queried as a black box

fn rho(x) = 2.4*x - 64*pi^2*exp(4*x)*sin(4*pi*exp(2*x)) - 396*exp(2*x)*sin(20*x)
          + 80*exp(2*x)*cos(20*x) + 16*pi*exp(2*x)*cos(4*pi*exp(2*x)) + 0.4
fn EI(x) = exp(x) / rho(x)

pde dxx(EI(x) * dxx(w)) = exp(x)              # the physics the optimizer knows

minimize w
optimum -5.94239633614588                     # at x = 0.88369713 (exact solution)

oracle fdm {                                  # the "experiment", hidden from the optimizer
  # no `points`: the solver's default (65,537) is the accurate resolution; 4001 grid points
  # would leave a 3.4e-4 error on this oscillating solution
  w = 0 at x = 0
  w = sin(4*pi*exp(2)) + exp(2)*sin(20) + 0.6 at x = 1
  EI(x) * dxx(w) = 1 at x = 0
  EI(x) * dxx(w) = e at x = 1
}

noise added variance 1% of range
budget 100, init 10 sobol
method pinn-bo { residual_batch 500 }
