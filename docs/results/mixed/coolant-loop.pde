# A coolant loop: its fluid, the number of passes p through the exchanger and the flow rate q
# (L/s, over decades): minimize the pump's power plus the cost of the heat not removed.
# Written for the mixed-variable results before any run; not changed after.
problem "coolant-loop"
var fluid in {water, oil, glycol}, p in 1..8, q in [0.05, 5] log
fn cp() = 4.2*(fluid == water) + 1.9*(fluid == oil) + 3.5*(fluid == glycol)
fn mu() = 1*(fluid == water) + 30*(fluid == oil) + 6*(fluid == glycol)
fn removed() = 1 - exp(-0.6*p*cp()/(1 + q*cp()))
minimize 0.4*mu()*q^2*p + 50*(1 - removed()*(1 - exp(-2*q))) + 0.5*p
optimum 14.3547386670
budget 30, init 8
