# Speed reducer design (d = 7, 11 constraints).
# Source: thesis §4.3.4 (Neural-CBO real-world tasks), from Kumar et al. (2020); bounds from there.
# The thesis prints c9 as -x1/x2 - 12 <= 0, which always holds; the original is x1/x2 - 12 <= 0.
# x3 (a number of teeth) is an integer in the original; here, as in the thesis, it is continuous.
# The benchmark's constraints are black boxes: each is written through a field, so that
# pinnbo learns it from its values as the literature's methods do (a constraint on the
# variables alone would be known and computed, docs/dsl.md).
problem "speed-reducer"

var x1 in [2.6, 3.6], x2 in [0.7, 0.8], x3 in [17, 28], x4 in [7.3, 8.3]
var x5 in [7.8, 8.3], x6 in [2.9, 3.9], x7 in [5.0, 5.5]
minimize 0.7854*x2^2*x1*(14.9334*x3 - 43.0934 + 3.3333*x3^2) + 0.7854*(x5*x7^2 + x4*x6^2)
       - 1.508*x1*(x7^2 + x6^2) + 7.477*(x7^3 + x6^3)
field g_c1(x1, x2, x3, x4, x5, x6, x7) = -x1*x2^2*x3 + 27
field g_c2(x1, x2, x3, x4, x5, x6, x7) = -x1*x2^2*x3^2 + 397.5
field g_c3(x1, x2, x3, x4, x5, x6, x7) = -x2*x6^4*x3/x4^3 + 1.93
field g_c4(x1, x2, x3, x4, x5, x6, x7) = -x2*x7^4*x3/x5^3 + 1.93
field g_c5(x1, x2, x3, x4, x5, x6, x7) = 10/x6^3*sqrt(16.91e6 + (745*x4/(x2*x3))^2) - 1100
field g_c6(x1, x2, x3, x4, x5, x6, x7) = 10/x7^3*sqrt(157.5e6 + (745*x5/(x2*x3))^2) - 850
field g_c7(x1, x2, x3, x4, x5, x6, x7) = x2*x3 - 40
field g_c8(x1, x2, x3, x4, x5, x6, x7) = -x1/x2 + 5
field g_c9(x1, x2, x3, x4, x5, x6, x7) = x1/x2 - 12
field g_c10(x1, x2, x3, x4, x5, x6, x7) = 1.5*x6 - x4 + 1.9
field g_c11(x1, x2, x3, x4, x5, x6, x7) = 1.1*x7 - x5 + 1.9
subject to c1: g_c1 <= 0
subject to c2: g_c2 <= 0
subject to c3: g_c3 <= 0
subject to c4: g_c4 <= 0
subject to c5: g_c5 <= 0
subject to c6: g_c6 <= 0
subject to c7: g_c7 <= 0
subject to c8: g_c8 <= 0
subject to c9: g_c9 <= 0
subject to c10: g_c10 <= 0
subject to c11: g_c11 <= 0
optimum 2994.4244658                         # Kumar et al. (2020)

noise added variance 1% of range
budget 100, init 10 sobol
method neural-cbo { width 30, depth 2, lr 0.001 }   # the thesis: width m = T, L = 2, learning rate 0.001
