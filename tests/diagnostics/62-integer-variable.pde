# An integer variable's bounds are integers, and a pde cannot differentiate it.
var n in 1.5..4, k in 1..3, x in [0, 1]
field u(x, k)
pde d(u, x, 2) + d(u, k) = 0
minimize u
oracle external
