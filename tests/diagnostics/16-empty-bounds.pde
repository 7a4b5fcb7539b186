var x in [2*pi, 2*pi]
minimize x
