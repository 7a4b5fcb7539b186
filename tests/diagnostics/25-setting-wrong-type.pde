var x in [0, 1]
minimize x^2
method neural-bo { width tanh, activation 3, lr -0.1, depth 2.5 }
