var x in [0, 1]
minimize x
oracle command "./run {x}" { timeout -1 s }
