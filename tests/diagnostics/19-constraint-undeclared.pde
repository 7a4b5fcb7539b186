var x in [0, 1]
minimize x
subject to x + y <= 1
