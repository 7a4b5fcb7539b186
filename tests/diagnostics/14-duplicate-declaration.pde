var x in [0, 1]
fn x(t) = 2*t
var x in [0, 2]
minimize x
