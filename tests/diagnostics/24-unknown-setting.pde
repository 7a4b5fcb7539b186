var x in [0, 1]
minimize x^2
method neural-bo { widht 100, candidate 5000 }
