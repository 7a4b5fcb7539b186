var x in [0, 1]
field w(x)
pde dxx(w) = 1
minimize w
oracle fdm {
  w = 0 at x = 0
  d(w, x) = 0 at x = 0
  w = 1 at x = 1
}
