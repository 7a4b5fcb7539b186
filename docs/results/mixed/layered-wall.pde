# A building wall of n brick layers and an insulation board of thickness d (m): minimize
# the heat lost over its life plus what it costs. Written for the mixed-variable results
# before any run; not changed after.
problem "layered-wall"
var n in 1..12, d in [0.01, 0.3]
fn resistance() = 0.2 + 0.15*n + d/0.035*(1 - 0.02*n)
minimize 100/resistance() + 3*n^1.2 + 80*d + 0.8*sin(2*n)
optimum 36.5336081306
budget 25, init 6
