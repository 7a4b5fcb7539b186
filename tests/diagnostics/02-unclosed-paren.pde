var x in [0, 1]
minimize sin(x
budget 10
