# conductivity.pde without its sensors lines: the objective alone (issue 52).
var q in [0, 2], s in [-0.5, 0.5]
coord x in [0, 1]
param k in [0.5, 5] log
field T(x, q, s) = q / (2*2.5) * x * (1 - x) + s * x
pde k * dxx(T) = -q
minimize (T(0.4, q, s) - 0.2)^2 + (integral(T, x) - 0.15)^2
budget 25, init 8
optimum 0.0008498644986449885
