# A cooling fin array of n fins: the temperature along a fin, T(x), obeys T'' - n T = source
# (more fins, more heat drawn off along the length). Which fin count and which position x
# give the lowest temperature? Written for physics-gp over discrete variables before any
# run; not changed after.
problem "fin-count"
var x in [0, 1], n in 1..6
field T(x, n) = cosh(sqrt(n)*(x - 0.6))*(1 - 0.1*n) + 0.2*sin(7*x)
pde dxx(T) - n*T = -0.2*(49 + n)*sin(7*x)
minimize T
optimum 0.2051710648
noise added variance 1% of range
budget 20, init 6
