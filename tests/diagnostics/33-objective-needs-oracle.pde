var x in [0, 1]
field w(x)
pde dxx(w) = 1
minimize w
