var x in [0, 1.2.3]
minimize x
