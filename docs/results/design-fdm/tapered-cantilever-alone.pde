# tapered-cantilever.pde without its sensors lines: the objective alone (issue 52).
# A cantilever of thickness h0*(1 - s*x) (stiffness its cube) carries its own weight and a
# payload of 1 per unit length; its tip deflection is minimized with at most one unit of
# material. Five gauges read the deflection. Written before any run (issue 52), not changed
# after.
problem "tapered-cantilever-alone"
var h0 in [0.5, 2], s in [0, 0.8]
coord x in [0, 1]
field w(x, h0, s)
pde dxx((h0*(1 - s*x))^3 * dxx(w)) = -(1 + 0.5*h0*(1 - s*x))
minimize -w(1, h0, s)
subject to mass: h0*(1 - s/2) <= 1
oracle fdm {
  points 2049
  w = 0 at x = 0
  d(w, x) = 0 at x = 0
  (h0*(1 - s*x))^3 * dxx(w) = 0 at x = 1
  d((h0*(1 - s*x))^3 * dxx(w), x) = 0 at x = 1
}
optimum 0.0757677134157398    # at h0 = 1.66667, s = 0.8 (optimum.py: a dense grid of designs refined six times)
budget 25, init 8
