var x in [0, 1]
field w(x)
minimize w
oracle closed-form
