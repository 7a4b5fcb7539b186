# detector-rod.pde without its sensors lines: the objective alone (issue 52).
var a in [-1, 1], b in [-1, 1]
coord x in [0, 1]
field T(x, a, b) = a*sin(pi*x) + b*sin(2*pi*x) + 0.3*a*b*sin(3*pi*x)
pde -dxx(T) = pi^2*a*sin(pi*x) + 4*pi^2*b*sin(2*pi*x) + 2.7*pi^2*a*b*sin(3*pi*x)
minimize (T(0.3, a, b) - 0.5)^2 + (T(0.75, a, b) - 0.2)^2
budget 25, init 8
optimum 0
