# Written before any run (session 46): a shallow bowl with a ripple in three variables,
# under a screened Laplacian.
problem "damped-3d"

var x in [0, 1], y in [0, 1], z in [0, 1]
field u(x, y, z) = (x - 0.4)^2 + (y - 0.6)^2 + 0.5*(z - 0.5)^2 + 0.3*sin(3*x + 2*z)*cos(2*y)
pde laplacian(u) - 2*u = -2*x^2 + 8*x/5 - 2*y^2 + 12*y/5 - z^2 + z - 57*sin(3*x + 2*z)*cos(2*y)/10 + 371/100
minimize u
optimum 0.02928643441758253

noise added variance 1% of range
budget 25, init 10 sobol
