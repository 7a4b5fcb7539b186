# Log scales beyond what the models can hold (issue 53, items 8, 12 and 13): each refused at
# its bounds, and the names stay quiet where they are used. A physical constant in SI units
# fits inside [1e-60, 1e60].
var lr in [1e-200, 1e200] log, tiny in [5e-324, 1] log, x in [0, 1]
field u(x, lr)
param k in [1e-300, 1e300] log
param c in [1e-300, 1] log
param h in [1e-35, 1e-33] log
pde dxx(u) = k*c*h
minimize u + tiny
oracle external
