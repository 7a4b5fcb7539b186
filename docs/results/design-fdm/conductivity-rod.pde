# A rod of unknown conductivity k, heated around x = c with power Q, its left end held at 0
# and its right end cooled by the air; the detector at x = 0.6 should read 0.5 at the least
# power. Four thermocouples. Written before any run (issue 52), not changed after.
problem "conductivity-rod"
var c in [0, 1], Q in [0, 5]
coord x in [0, 1]
param k in [0.2, 5] log
field T(x, c, Q)
pde -k*dxx(T) = Q*exp(-((x - c)/0.15)^2)
sensors T at x = 0.2, 0.4, 0.6, 0.8
minimize (T(0.6, c, Q) - 0.5)^2 + 0.02*Q
oracle fdm {
  param k = 0.7
  T = 0 at x = 0
  d(T, x) + 2*T = 0 at x = 1
}
optimum 0.07572751694582973    # at c = 0.626477, Q = 3.44573 (optimum.py: a dense grid of designs refined six times)
budget 25, init 8
