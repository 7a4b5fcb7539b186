# A reference point is for several objectives.
var x in [0, 1]
minimize cost: x^2
reference cost = 1
