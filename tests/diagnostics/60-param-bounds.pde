# A log param's bounds must be positive; its true value belongs in the fdm block only.
var x in [0, 1]
param k in [0, 8] log
param s in [2, 1]
field u(x)
pde d(u, x, 2) = s*k
minimize u
oracle command "sim {x}"
method physics-gp { param k = 2 }
