# A pde that the field does not satisfy (its source's sign flipped), for physics-gp's `check`
# (docs/results.md "physics-gp checked by cross-validation"); not a shipped problem.
problem "wrong-sign"

var x in [0, 1]
field f(x) = sin(6*x) + 0.5*x
pde dxx(f) = 36*sin(6*x)          # the field's own is -36*sin(6*x)
minimize f
optimum -0.61077515                  # at x = 0.77146

noise added variance 1% of range
budget 25, init 5 sobol
method physics-gp
