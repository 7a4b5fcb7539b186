# Synthetic noise would alter what the program measured.
var x in [0, 1]
field f(x)
minimize f
oracle command "./measure.sh {x}"
noise added std 0.05
