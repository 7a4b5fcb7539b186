var x in [0, 1e999]
minimize x
