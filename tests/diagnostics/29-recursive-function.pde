var x in [0, 1]
fn f(t) = 1 + g(t)
fn g(t) = f(t) / 2
minimize f(x)
