# ZDT1 in four variables (Zitzler, Deb and Thiele 2000): a convex front f2 = 1 − √f1 where
# x2..x4 = 0. Written for the two-objective results before any run; not changed after.
problem "zdt1-4"
var x[4] in [0, 1]
fn g() = 1 + 9*(x[2] + x[3] + x[4])/3
minimize f1: x[1]
minimize f2: g()*(1 - sqrt(x[1]/g()))
reference f1 = 1.1, f2 = 1.1
optimum 0.8766666667
budget 40, init 8
