var x in [0, 1], y in [0, 1]
field f(x) = x + y
minimize f
