# Vector operators act along a field's continuous variables only (laplacian(T) below is
# d(T, x, 2) + d(T, y, 2)); a field of discrete variables alone has nothing to act along.
var x in [0, 1], y in [0, 1], n in 1..4, m in {a, b}
field T(x, y, m)
field U(n, m)
pde laplacian(T) = n
pde laplacian(U) = 1
pde div(grad(T)) + dot(grad(T), grad(T)) = 0
minimize T
oracle external
