var x in [0, 1]
minimize x
subject to x >= 0.2
oracle command "./measure {x}"
