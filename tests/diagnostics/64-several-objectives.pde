# Several objectives are each named, by names no variable or constraint has; the reference
# point gives each one value and names no other.
var w in [0.1, 1], h in [0.1, 1]
minimize weight: w*h
minimize w/h^3
maximize h: h
maximize stiffness: w*h^3
maximize weight: w
reference weight = 2, sag = 1
optimum 3.5
