# A beam nobody tuned for (session 21): varying rigidity, a smooth load, simply supported.
# The deflection is concave with zero ends, so its maximum is inside.
problem "new-beam"

var x in [0, 2]
field w(x)
fn EI(x) = 1 + cos(3*x)/2
pde dxx(EI(x) * dxx(w)) = 1 + sin(2*x)
maximize w

oracle fdm {
  w = 0 at x = 0
  w = 0 at x = 2
  EI(x) * dxx(w) = 0 at x = 0
  EI(x) * dxx(w) = 0 at x = 2
}

noise added variance 1% of range
budget 25, init 10 sobol
