# ZDT2 in three variables: a concave front f2 = 1 − f1² where x2 = x3 = 0. Written for the
# two-objective results before any run; not changed after.
problem "zdt2-3"
var x[3] in [0, 1]
fn g() = 1 + 9*(x[2] + x[3])/2
minimize f1: x[1]
minimize f2: g()*(1 - (x[1]/g())^2)
reference f1 = 1.1, f2 = 1.1
optimum 0.5433333333
budget 40, init 8
