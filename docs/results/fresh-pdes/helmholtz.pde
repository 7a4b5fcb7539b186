# A Helmholtz field, laplacian(u) + 25 u = 0 (session 24, written before any run).
problem "helmholtz"

var x in [0, 2], y in [0, 2]
field u(x, y) = sin(3*x + 0.4)*sin(4*y + 1) + 0.7*cos(5*y) + 0.5*sin(4*x)*cos(3*y - 0.5)
pde laplacian(u) + 25*u = 0
minimize u
optimum -1.6491416087388218

noise added variance 1% of range
budget 25, init 10 sobol
