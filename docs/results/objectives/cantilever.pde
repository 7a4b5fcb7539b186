# A steel cantilever of length 1 m with a rectangular section, width w and height h (m),
# carrying 2 kN at its tip: its mass (kg) against its tip deflection (mm), the height at most
# three times the width. Written for the two-objective results before any run; not changed
# after.
problem "cantilever"
var w in [0.01, 0.1], h in [0.02, 0.2]
const E = 210e9
const load = 2000
const length = 1
const density = 7850
minimize mass: density*w*h*length
minimize deflection: 1000*load*length^3/(3*E*w*h^3/12)
subject to slender: h - 3*w <= 0
reference mass = 160, deflection = 20
optimum 2954.0985
budget 40, init 8
