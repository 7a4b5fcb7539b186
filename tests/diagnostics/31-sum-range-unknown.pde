var x in [0, 1]
minimize x + sum(i, i^2)
