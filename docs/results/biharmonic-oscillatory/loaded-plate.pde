# Written before any run (session 46): a plate under a sinusoidal load with cubic edge terms;
# its highest point is inside.
problem "loaded-plate"

var x in [0, 2], y in [0, 1]
field w(x, y) = 0.8*sin(1.2*x + 0.3)*sin(2.5*y + 0.2) + 0.15*(x^3 - 3*x*y^2) - 0.3*(x^2 + y^2)*x
pde biharmonic(w) = 47.30888*sin(1.2*x + 0.3)*sin(2.5*y + 0.2)
maximize w
optimum 0.5474899196314589

noise added variance 1% of range
budget 25, init 10 sobol
