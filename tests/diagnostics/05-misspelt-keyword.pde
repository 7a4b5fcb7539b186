var x in [0, 1]
minimise x^2
