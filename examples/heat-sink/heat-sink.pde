# A finned heat sink measured by a simulator (simulate.py): how many fins, and how thick,
# for the coolest sink of at most 0.25 kg? The simulator reports the mass as a constraint.
problem "heat-sink"
var fins in 2..30, thickness in [0.4, 3]
field temperature_rise(fins, thickness)
field excess_mass(fins, thickness)
minimize temperature_rise
subject to mass: excess_mass <= 0
oracle command "python3 simulate.py {fins} {thickness}" { output json, timeout 30 s }
budget 25, init 8
method gp-ei
