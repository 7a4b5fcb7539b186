# A categorical variable's levels are distinct and at least two; `==` compares it with a
# level it has; it is not a number, and a pde cannot differentiate it.
var material in {steel, copper, steel}, finish in {matte}
var grade in {low, high}, t in [0, 1], n in 1..4
fn k() = 16*(grade == lwo) + 400*(grade == high)
field u(t, grade)
pde d(u, t, 2) + d(u, grade) = 0
minimize u + k()
subject to grade <= 1
subject to (grade == 2) <= 1
subject to (t == high) <= 1
subject to (n == low) <= 1
oracle external
