# A Sturm–Liouville field, -(p u')' + q u = f with p = 1 + x²/4, q = 1 + x (session 24,
# written before any run).
problem "sturm"

var x in [0, 4]
fn f(x) = -x*(-2*sin(5*x + 1) - 3*exp(-3*x/10)*sin(2*x)/10 + 2*exp(-3*x/10)*cos(2*x))/2 + (x + 1)*(2*cos(5*x + 1)/5 + exp(-3*x/10)*sin(2*x)) - (x^2/4 + 1)*(-10*cos(5*x + 1) - 391*exp(-3*x/10)*sin(2*x)/100 - 6*exp(-3*x/10)*cos(2*x)/5)
field u(x) = sin(2*x)*exp(-0.3*x) + 0.4*cos(5*x + 1)
pde -d((1 + x^2/4)*d(u, x), x) + (1 + x)*u = f(x)
minimize u
optimum -0.5942209512508693

noise added variance 1% of range
budget 25, init 10 sobol
