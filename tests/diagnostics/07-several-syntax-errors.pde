var x in [0, 1
fn f(t) = t +
minimize x )
budget 10
seed ]
