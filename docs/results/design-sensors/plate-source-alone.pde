# plate-source.pde without its sensors lines: the objective alone (issue 52).
var px in [0, 1], py in [0, 1]
coord x in [0, 1], y in [0, 1]
field T(x, y, px, py) = exp(-((x - px)^2 + (y - py)^2) / 0.1)
pde laplacian(T) = T * (400*((x - px)^2 + (y - py)^2) - 40)
minimize (T(0.25, 0.5, px, py) - 0.6)^2 + (T(0.75, 0.5, px, py) - 0.3)^2
budget 25, init 8
optimum 0
