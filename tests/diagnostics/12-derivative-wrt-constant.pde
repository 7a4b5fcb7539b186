const k = 2
var x in [0, 1]
field u(x)
pde d(u, k) = 0
minimize x
