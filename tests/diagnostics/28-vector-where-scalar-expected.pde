var x[5] in [-1, 1]
minimize x^2
