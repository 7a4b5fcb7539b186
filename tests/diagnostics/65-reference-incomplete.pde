# A reference point names every objective; one objective takes none, and a command that
# prints one number cannot report two objectives.
var w in [0.1, 1], h in [0.1, 1]
minimize weight: w*h
minimize sag: 1/(w*h^3)
reference weight = 2
oracle command "./beam {w} {h}"
