# A steady plume, advection along (1, 0.3) with diffusion 0.01 and a source (session 24,
# written before any run).
problem "plume"

var x in [0, 1], y in [0, 1]
fn s(x, y) = (1 - (-10*y + 2*sin(3*x) + 5)^2/(5*x + 1))*(4*x + 1/5)*exp(-3*x)*exp(-50*(-y + sin(3*x)/5 + 1/2)^2/(5*x + 1))/(5*x + 1) + (4*x + 1/5)*(6*(y - sin(3*x)/5 - 1/2)*cos(3*x)/(5*(x/10 + 1/50)) + (y - sin(3*x)/5 - 1/2)^2/(10*(x/10 + 1/50)^2))*exp(-3*x)*exp(-(y - sin(3*x)/5 - 1/2)^2/(x/10 + 1/50)) - 3*(4*x + 1/5)*exp(-3*x)*exp(-(y - sin(3*x)/5 - 1/2)^2/(x/10 + 1/50)) - (36*x - 111/5 + 3*(20*x + 1)*(12*cos(3*x) - 5*(-10*y + 2*sin(3*x) + 5)/(5*x + 1))*(-10*y + 2*sin(3*x) + 5)/(5*(5*x + 1)) + (20*x + 1)*(72*(-10*y + 2*sin(3*x) + 5)*sin(3*x) - 144*cos(3*x)^2 + (12*cos(3*x) - 5*(-10*y + 2*sin(3*x) + 5)/(5*x + 1))^2*(-10*y + 2*sin(3*x) + 5)^2/(5*x + 1) + 240*(-10*y + 2*sin(3*x) + 5)*cos(3*x)/(5*x + 1) - 100*(-10*y + 2*sin(3*x) + 5)^2/(5*x + 1)^2)/(20*(5*x + 1)) - 4*(12*cos(3*x) - 5*(-10*y + 2*sin(3*x) + 5)/(5*x + 1))*(-10*y + 2*sin(3*x) + 5)/(5*x + 1))*exp(-3*x)*exp(-50*(-y + sin(3*x)/5 + 1/2)^2/(5*x + 1))/100 + 4*exp(-3*x)*exp(-(y - sin(3*x)/5 - 1/2)^2/(x/10 + 1/50)) - 3*(4*x + 1/5)*(2*y - 2*sin(3*x)/5 - 1)*exp(-3*x)*exp(-(y - sin(3*x)/5 - 1/2)^2/(x/10 + 1/50))/(10*(x/10 + 1/50))
field w(x, y) = exp(-(y - 0.5 - 0.2*sin(3*x))^2/(0.02 + 0.1*x))*(0.2 + 4*x)*exp(-3*x)
pde d(w, x) + 0.3*d(w, y) - 0.01*laplacian(w) = s(x, y)
maximize w
optimum 0.5698865759316353

noise added variance 1% of range
budget 25, init 10 sobol
