var x in [0, 1]
minimize x^2
budget 5, init 10 sobol
