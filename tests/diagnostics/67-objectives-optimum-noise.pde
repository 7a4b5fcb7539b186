# With several objectives, `optimum` is a hypervolume (it needs a reference point), and a
# noise statement is not built yet; nor is an fdm oracle.
var x in [0, 1]
field u(x)
pde d(u, x, 2) = -1
minimize cost: x^2
minimize sag: u
optimum 0.8
noise std 0.1
oracle fdm { u(0) = 0, u(1) = 0, grid 33 }
