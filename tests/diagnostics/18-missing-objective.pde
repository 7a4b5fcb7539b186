var x in [0, 1]
budget 10
