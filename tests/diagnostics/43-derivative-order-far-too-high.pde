var x in [0, 1]
field u(x)
pde d(u, x, 4000000000) = 0
minimize u
oracle command "unused {x}"
