# Sensors outside the box, on a field without coordinates, and with a coordinate missing.
var a in [0.1, 0.9]
coord x in [0, 1], t in [0, 2]
field u(x, t, a)
field g(a) = a
pde d(u, t) = dxx(u)
sensors u at (x, t) = (0.1, 1), (1.5, 1), (0.3)
sensors u at x = 0.5
sensors g at a = 0.3
sensors u at (x, z) = (0.1, 0.2)
sensors u at (x, t) = (grid(0, 1, 3), 1)
sensors v at x = 0.1
minimize u(0.5, 2, a)
oracle external
