# A 3-D Poisson field (session 24, written before any run): a warm blob on a tilted background.
problem "poisson-3d"

var x in [0, 1], y in [0, 1], z in [0, 1]
fn s(x, y, z) = 25*(10*x - 3)^2*exp(-(10*x - 3)^2/8 - (5*y - 3)^2/2 - (5*z - 2)^2/2)/4 + 25*(5*y - 3)^2*exp(-(10*x - 3)^2/8 - (5*y - 3)^2/2 - (5*z - 2)^2/2) + 25*((5*z - 2)^2 - 1)*exp(-(10*x - 3)^2/8 - (5*y - 3)^2/2 - (5*z - 2)^2/2) - 50*exp(-(10*x - 3)^2/8 - (5*y - 3)^2/2 - (5*z - 2)^2/2) - 13*sin(3*x + 2*y)/5
field u(x, y, z) = exp(-((x - 0.3)^2 + (y - 0.6)^2 + (z - 0.4)^2)/0.08) + 0.5*x*y*z + 0.2*sin(3*x + 2*y)
pde laplacian(u) = s(x, y, z)
maximize u
optimum 1.2097853359854447

noise added variance 1% of range
budget 25, init 10 sobol
