var x in [0, 1]
minimize x +
