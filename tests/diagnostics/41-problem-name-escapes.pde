problem "../../../tmp/x"
var x in [0, 1]
minimize x^2
