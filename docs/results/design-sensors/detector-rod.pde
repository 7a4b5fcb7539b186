# Two detectors on a rod read targets; the field is a sum of modes whose amplitudes are the
# design. Written before any run (issue 52), not changed after.
var a in [-1, 1], b in [-1, 1]
coord x in [0, 1]
field T(x, a, b) = a*sin(pi*x) + b*sin(2*pi*x) + 0.3*a*b*sin(3*pi*x)
pde -dxx(T) = pi^2*a*sin(pi*x) + 4*pi^2*b*sin(2*pi*x) + 2.7*pi^2*a*b*sin(3*pi*x)
sensors T at x = grid(0.1, 0.9, 5)
minimize (T(0.3, a, b) - 0.5)^2 + (T(0.75, a, b) - 0.2)^2
budget 25, init 8
optimum 0
