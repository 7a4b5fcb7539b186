var x[3] in [-1, 1]
minimize x[1] + x[4]
