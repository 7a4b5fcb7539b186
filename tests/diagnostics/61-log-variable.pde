# A variable on a log scale needs a positive lower bound.
var lr in [0, 0.1] log, depth in [1, 4]
minimize lr + depth
