# A param is what is not known: a closed form, the objective and a constraint cannot use it.
var x in [0, 1]
param k in [0.5, 8] log
field u(x) = sin(3*x) + k
pde d(u, x, 2) + k^2*u = 0
minimize u + k
subject to u <= k
