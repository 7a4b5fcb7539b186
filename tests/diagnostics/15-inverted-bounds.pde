var x in [1, 0]
minimize x
