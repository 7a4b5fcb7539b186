# A reaction run in a lab, measured outside pinnbo (docs/ask-tell.md, docs/python.md): its
# cost over the temperature t (°C) and a concentration c, and two measured limits. Nothing
# here can measure it: `pinnbo ask` hands out points, `pinnbo tell` records what they gave
# (`pinnbo solve` refuses the file).
problem "lab"
var t in [20, 80], c in [0.1, 1]
field cost(t, c)
field heat(t, c)                              # the reactor's peak heat load, kW
field impurity(t, c)                          # the product's impurity, %
minimize cost
subject to cooling: heat <= 5
subject to purity: impurity <= 2
oracle external
noise std 0.05                                # the measurement's known noise
budget 30, init 8 sobol
method gp-ei
