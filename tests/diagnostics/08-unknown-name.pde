var alpha in [0, 1]
minimize (alpah - 0.5)^2
