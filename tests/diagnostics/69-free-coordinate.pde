# A design problem that leaves a field coordinate free, and misuses the functionals.
var a in [0.1, 0.9]
coord x in [0, 1], y in [0, 1]
field T(x, y, a)
field U(a) = a^2
pde laplacian(T) = a
minimize T
subject to c1: integral(T, x) <= 1
subject to c2: T(0.5, 2, a) <= 1
subject to c3: T(0.5, 0.5, 0.3) <= 1
subject to c4: mean(U, a) <= 1
subject to c5: maximum(a, x) <= 1
subject to c6: x <= 1
oracle external
method pinn-bo
