var re in [100, 1000], angle in [0, 30]
minimize 0
oracle command "./simulate --re {re} --angle {angel}" { timeout 10 min, output number }
