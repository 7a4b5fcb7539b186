# A rod heated along its length by a fixed source, made of one of three materials: its
# conductivity k scales the temperature the source raises, and each material's contacts
# hold its ends differently. Where, and in which material, is the temperature lowest?
# Written for physics-gp over discrete variables before any run; not changed after.
problem "rod-material"
var x in [0, 1], material in {steel, copper, titanium}
fn k() = 1*(material == steel) + 2.5*(material == copper) + 0.6*(material == titanium)
fn left() = 0.2*(material == steel) - 0.1*(material == copper) + 0.5*(material == titanium)
fn slope() = -0.4*(material == steel) + 0.3*(material == copper) - 0.2*(material == titanium)
field T(x, material) = sin(5*x)*exp(x)/k() + left() + slope()*x
pde k()*dxx(T) = (10*cos(5*x) - 24*sin(5*x))*exp(x)
minimize T
optimum -4.0596210643
noise added variance 1% of range
budget 20, init 6
