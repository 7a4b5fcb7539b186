# transient-rod.pde without its sensors lines: the objective alone (issue 52).
# A rod heated for one unit of time by a heater of power P at position c, its ends held at
# 0; at t = 1 the points x = 0.3 and x = 0.7 should read 0.3 and 0.1. Five thermocouples read
# the rod, four at t = 1 and one at t = 0.5. Written before any run (issue 52), not changed
# after.
problem "transient-rod-alone"
var c in [0.1, 0.9], P in [0, 10]
coord x in [0, 1], t in [0, 1]
field u(x, t, c, P)
pde d(u, t) = 0.1*dxx(u) + P*exp(-((x - c)/0.1)^2)
minimize (u(0.3, 1, c, P) - 0.3)^2 + (u(0.7, 1, c, P) - 0.1)^2
oracle fdm {
  points 129
  steps 128
  u = 0 at x = 0
  u = 0 at x = 1
  u = 0 at t = 0
}
optimum 1.3192411849008755e-14    # at c = 0.309953, P = 1.26874 (optimum.py: a dense grid of designs refined six times)
budget 25, init 8
