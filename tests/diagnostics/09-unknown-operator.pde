var x in [0, 1], y in [0, 1]
field T(x, y)
pde laplacain(T) = 0
maximize T
