var x in [0, 1]
field w(x)
pde d(w, x, 5) = 0
minimize w
oracle fdm { w = 0 at x = 0 }
