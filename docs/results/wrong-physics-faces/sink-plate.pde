# A plate whose pde says harmonic (Laplace), while a localized sink the pde does not know makes
# the minimum interior. Written for issue 38 before any run; not changed after.
problem "sink-plate"
var x in [0, 1], y in [0, 1]
field u(x, y) = x^2 - y^2 + 0.3*x - 1.5*exp(-40*((x - 0.6)^2 + (y - 0.45)^2))
pde laplacian(u) = 0
minimize u
optimum -1.1752068465748076                  # at (0.58760, 0.45769), by L-BFGS-B from a 2001² grid
noise added variance 1% of range
budget 20, init 8 sobol
