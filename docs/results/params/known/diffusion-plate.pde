# A plate with a known heat source and an unknown diffusivity D (true value 2).
# The same problem with its params' true values written in (the pde the experiment obeys).
problem "diffusion-plate"
var x in [0, 1], y in [0, 1]
field u(x, y) = exp(-3*((x - 0.4)^2 + (y - 0.6)^2)) + 0.5*x*y
fn r2(x, y) = (x - 0.4)^2 + (y - 0.6)^2
pde (2)*laplacian(u) = 2*exp(-3*r2(x, y))*(36*r2(x, y) - 12)
maximize u
optimum 1.131831530629066                # at (0.45390, 0.63832), by optima.py
noise added variance 1% of range
budget 25, init 8 sobol
