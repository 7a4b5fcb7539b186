# Rastrigin (d = 5) with an Euler-type PDE  x . grad f - f = g(x): problems/rastrigin-20.pde
# with d = 5 and budget 25 (its twenty-variable physics-gp step costs minutes here), written to
# test physics-gp's check of the pde's targets on a problem it was not designed on.
problem "rastrigin-5"

const d = 5
var x[d] in [-5.12, 5.12]
field f(x) = 10*d + sum(x^2 - 10*cos(2*pi*x))
pde dot(x, grad(f)) - f = sum(x^2 + 20*pi*x*sin(2*pi*x) + 10*cos(2*pi*x) - 10)
minimize f
optimum 0

noise added variance 1% of range
budget 25, init 10 sobol
