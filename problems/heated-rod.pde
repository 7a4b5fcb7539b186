# A design problem (docs/dsl.md "Design problems"): a rod heated evenly at rate q with its
# left end held at T0 and its right end at 0, so -T'' = q. Five thermocouples read the rod
# at every evaluation; the detector at x = 0.7 should read 0.9 at the least heating, and the
# hottest point may not pass 1.2. physics-gp conditions the field on the thermocouples and on
# the pde over the rod and the design.
problem "heated-rod"
var q in [0, 10], T0 in [0, 1]
coord x in [0, 1]
field T(x, q, T0) = T0 * (1 - x) + q * x * (1 - x) / 2
pde -dxx(T) = q
sensors T at x = grid(0.1, 0.9, 5)
minimize (T(0.7, q, T0) - 0.9)^2 + 0.01 * q
subject to hottest: maximum(T, x) <= 1.2
optimum 0.05735575257592251    # q = 5.0111, T0 = 0.9624, on the constraint (a dense grid)
budget 30, init 8
method physics-gp
