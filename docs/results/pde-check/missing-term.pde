# A plate whose pde leaves out the heat source of a bump the field has, for physics-gp's `check`
# (docs/results.md "physics-gp checked by cross-validation"); not a shipped problem.
problem "missing-term"

var x in [0, 1], y in [0, 1]
field T(x, y) = sin(3*x)*cosh(2*y) + 4*exp(-20*((x - 0.6)^2 + (y - 0.4)^2))
pde laplacian(T) = -5*sin(3*x)*cosh(2*y)      # the first term's own; the bump's is missing
maximize T
optimum 5.3146343                     # at (0.59460, 0.41126), a grid search

noise added variance 1% of range
budget 25, init 10 sobol
method physics-gp
