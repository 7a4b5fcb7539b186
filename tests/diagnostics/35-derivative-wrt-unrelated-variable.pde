var x in [0, 1], y in [0, 1]
field u(x)
pde d(u, y) = 0
minimize u
oracle fdm { u = 0 at x = 0 }
