var x in [0, 1]
field u(x)
pde dxx(u) = source(x)
minimize u
oracle fdm { u = 0 at x = 0; u = 0 at x = 1 }
