# plate-hotspot.pde without its sensors lines: the objective alone (issue 52).
# A heater of power P at (a, b) on a plate whose edges are held at 0. The plate's mean
# temperature is maximized while its hottest point stays at or below 1 and a component at
# (0.6, 0.6) at or below 0.3. Nine thermocouples read the plate. Written before any run
# (issue 52), not changed after.
problem "plate-hotspot-alone"
var a in [0.15, 0.85], b in [0.15, 0.85], P in [1, 150]
coord x in [0, 1], y in [0, 1]
field T(x, y, a, b, P)
pde -laplacian(T) = P*exp(-((x - a)^2 + (y - b)^2)/0.01)
maximize mean(T, x, y)
subject to hottest: maximum(T, x, y) <= 1
subject to component: T(0.6, 0.6, a, b, P) <= 0.3
oracle fdm {
  grid 65 x 65
  T = 0 at x = 0
  T = 0 at x = 1
  T = 0 at y = 0
  T = 0 at y = 1
}
optimum 0.2097820594984141    # at a = 0.368425, b = 0.350013, P = 108.602 (optimum.py: a dense grid of designs refined six times)
budget 25, init 8
