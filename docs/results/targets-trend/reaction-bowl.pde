# Written before any run (session 46): a screened Poisson field (a reaction term) on a bowl.
problem "reaction-bowl"

var x in [-1, 2], y in [-1, 1.5]
field u(x, y) = 1.5*((x - 0.6)^2 + 0.5*(y - 0.3)^2) + 0.4*exp(-2*x)*cos(y) - 0.3*sin(2*x + y)
pde laplacian(u) - 4*u = -6*x^2 + 36*x/5 - 3*y^2 + 9*y/5 + 27*sin(2*x + y)/10 + 207/100 - 2*exp(-2*x)*cos(y)/5
minimize u
optimum -0.1922549799116387

noise added variance 1% of range
budget 25, init 10 sobol
