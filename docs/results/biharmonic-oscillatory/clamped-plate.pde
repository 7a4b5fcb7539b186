# Written before any run (session 46): a plate under a uniform load with two boundary-moment
# terms; its deflection's lowest point is inside. Fourth order: no maximum principle.
problem "clamped-plate"

var x in [0, 1.5], y in [0, 1]
field w(x, y) = 0.5*((x - 0.55)^2 + (y - 0.4)^2)^2 + 0.08*x*exp(1.5*y)*cos(1.5*x) - 0.3*y*sin(2*x)*exp(-2*y)
pde biharmonic(w) = 32
minimize w
optimum -0.018426288020508882

noise added variance 1% of range
budget 25, init 10 sobol
