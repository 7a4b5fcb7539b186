var x in [-1e308, 1e308]
minimize x^2
