# A heated plate, bare or painted: the paint's conductivity scales the source's effect and
# changes the harmonic part the edges impose. Where, and with which finish, is the plate
# coolest? Written for physics-gp over discrete variables before any run; not changed after.
problem "coated-plate"
var x in [0, 1], y in [0, 1], finish in {bare, painted}
fn k() = 1*(finish == bare) + 1.8*(finish == painted)
fn a() = 0.5*(finish == bare) - 0.3*(finish == painted)
fn b() = -0.2*(finish == bare) + 0.6*(finish == painted)
field T(x, y, finish) = sin(3*x)*sin(4*y)/k() + a()*(x^2 - y^2) + b()*x*y
pde k()*laplacian(T) = -25*sin(3*x)*sin(4*y)
minimize T
optimum -1.2311548957
noise added variance 1% of range
budget 25, init 8
