const big = exp(1000)
const ratio = 1/0
var x in [0, 1]
minimize x
