# A rod with a moving heat source (session 24, written before any run): u_t = 0.05 u_xx + q,
# the field a cold spot drifting through a standing wave.
problem "heat-rod"

var x in [0, 3], t in [0, 2]
fn q(x, t) = -(8 - 20*t/3)*exp(-10*(t - 6/5)^2/3 - 20*(x - 19/10)^2/3) - (-40*(10*x - 19)^2*exp(-2*(5*t - 6)^2/15 - (10*x - 19)^2/15) + 300*exp(-2*(5*t - 6)^2/15 - (10*x - 19)^2/15) - 27*sin(2*x)*cos(t))/450 - 3*sin(t)*sin(2*x)/10
field u(x, t) = -exp(-(x - 1.9)^2/0.15 - (t - 1.2)^2/0.3) + 0.3*sin(2*x)*cos(t)
pde d(u, t) - 0.05*dxx(u) = q(x, t)
minimize u
optimum -1.069926580495348

noise added variance 1% of range
budget 25, init 10 sobol
