# The design of docs/guide.md section 7: how hard to heat a rod (q) and at what temperature to
# hold its left end (T0) so that a detector at x = 0.7 reads 0.9 at the least heating, the
# hottest point staying below 1.2. The rod's simulation (rod.py) reports five thermocouples.
var q in [0, 10], T0 in [0, 1]
coord x in [0, 1]
field T(x, q, T0)
pde -dxx(T) = q
sensors T at x = grid(0.1, 0.9, 5)
minimize (T(0.7, q, T0) - 0.9)^2 + 0.01 * q
subject to hottest: maximum(T, x) <= 1.2
oracle command "python3 rod.py {q} {T0}" { output json, timeout 30 s }
budget 30, init 8
method physics-gp
