var x in [0, 1]
minimize x
oracle command ""
