var x in [0, 1]
# café au lait
minimize x
