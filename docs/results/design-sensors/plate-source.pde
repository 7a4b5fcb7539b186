# A source on a plate at (px, py); two points should read 0.6 and 0.3. The field is a
# Gaussian bump, which satisfies a linear pde whose coefficient moves with the design.
# Written before any run (issue 52), not changed after.
var px in [0, 1], py in [0, 1]
coord x in [0, 1], y in [0, 1]
field T(x, y, px, py) = exp(-((x - px)^2 + (y - py)^2) / 0.1)
pde laplacian(T) = T * (400*((x - px)^2 + (y - py)^2) - 40)
sensors T at (x, y) = (0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75), (0.5, 0.5)
minimize (T(0.25, 0.5, px, py) - 0.6)^2 + (T(0.75, 0.5, px, py) - 0.3)^2
budget 25, init 8
optimum 0
