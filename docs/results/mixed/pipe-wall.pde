# A heat exchanger's wall: its material, its thickness t (mm) and its fin spacing s (mm).
# Minimize the yearly cost of the heat not passed plus the wall's own cost. Written for the
# mixed-variable results before any run; not changed after.
problem "pipe-wall"
var material in {steel, copper, aluminium, titanium}, t in [1, 20], s in [2, 30]
fn k() = 16*(material == steel) + 400*(material == copper) + 237*(material == aluminium) + 7*(material == titanium)
fn rho() = 7.9*(material == steel) + 8.9*(material == copper) + 2.7*(material == aluminium) + 4.5*(material == titanium)
fn price() = 1*(material == steel) + 9*(material == copper) + 3*(material == aluminium) + 25*(material == titanium)
fn fins() = (s - 6 - t/3)^2/s
minimize 300/sqrt(k()*(1 + t/4)) + 0.02*price()*rho()*t + fins() + 0.3*sin(t)
optimum 10.9460043265
budget 30, init 8
