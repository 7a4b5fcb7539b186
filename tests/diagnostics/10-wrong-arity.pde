var x in [0, 1]
minimize atan2(x) + max(x, 1, 2)
