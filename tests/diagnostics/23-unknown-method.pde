var x in [0, 1]
minimize x^2
method pinn_bo
