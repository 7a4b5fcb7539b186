var x in [0, 1]
field u(x)
pde d(sin(x), x) + u = 0
minimize x
