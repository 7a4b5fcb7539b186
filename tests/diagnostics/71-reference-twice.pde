# A reference point that gives one objective twice (which value was meant?).
var x in [0, 1]
minimize cost: x^2
minimize sag: (1 - x)^2
reference cost = 3, cost = 4, sag = 1
