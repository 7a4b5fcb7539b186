var x in [0, 1]
field u(x) = x^2
pde d(u, x) = u(0.5)
minimize u
