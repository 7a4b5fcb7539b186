# Only a ratio is determined: a u'' = -b with b/a = 3 (neither a nor b alone).
# Written for issue 51 before any run; not changed after.
problem "ratio-rod"
var x in [0, 1]
param a in [0.5, 5] log
param b in [0.5, 5] log
field u(x) = 1.5*x*(1 - x)
pde a*d(u, x, 2) = -b
minimize u
noise added variance 1% of range
budget 15, init 6 sobol
