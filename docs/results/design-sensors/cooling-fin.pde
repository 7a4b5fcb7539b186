# A cooling fin: T'' = m^2 T, its base held at T0; the mean temperature should be 0.8 at the
# least fin parameter m. Written before any run (issue 52), not changed after.
var m in [0.5, 3], T0 in [1, 2]
coord x in [0, 1]
field T(x, m, T0) = T0 * cosh(m*(1 - x)) / cosh(m)
pde dxx(T) = m^2 * T
sensors T at x = grid(0, 1, 4)
minimize (mean(T, x) - 0.8)^2 + 0.01*m
budget 25, init 8
optimum 0.008667014715446404
