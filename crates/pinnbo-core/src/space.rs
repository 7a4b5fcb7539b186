//! The design box and its map to the unit cube, where every surrogate works: linear in
//! each variable, or in its logarithm for a variable on a log scale; an integer variable
//! `lo..hi` is relaxed to `[lo − ½, hi + ½]`, each integer owning an equal share of the
//! unit interval, and a unit point maps to the integer whose share holds it. A categorical
//! variable is numbered like the integers `0..levels − 1` (its levels' positions), but no
//! order among its levels means anything: searches try each level ([`Kind::Levels`]) and
//! the GP's kernel compares levels only for equality.

use pinnbo_dsl::ir::Expr;
use pinnbo_dsl::Problem;

#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// How each variable maps onto its unit interval.
    pub scales: Vec<Scale>,
    /// The known constraints every point must hold.
    pub known: KnownConstraints,
}

/// Points a search or design draws at most to find some that hold the known constraints.
pub const FEASIBLE_SEARCH: usize = 1 << 16;

/// The constraints that are formulas of the variables alone
/// ([`pinnbo_dsl::ir::Constraint::is_known`]): the design, every search and `ask` keep to
/// the points where each is `<= 0`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KnownConstraints(Vec<Expr>);

impl KnownConstraints {
    pub fn of(problem: &Problem) -> KnownConstraints {
        let known = problem.constraints.iter().filter(|c| c.is_known());
        KnownConstraints(known.map(|c| c.expr.clone()).collect())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether every one holds at the box point `x` (a value that cannot be computed, NaN,
    /// does not).
    pub fn hold_at(&self, x: &[f64]) -> bool {
        (self.0.iter()).all(|e| pinnbo_dsl::eval::eval_point(e, x).is_some_and(|v| v <= 0.0))
    }
}

/// How one variable maps onto its unit interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Linear in the logarithm (the variable's `lo` is positive).
    Log,
    /// Integers `lo..=hi`, each owning an equal share.
    Integer,
    /// Levels numbered `0..levels − 1` like integers, in no order.
    Categorical,
}

impl Scale {
    /// Whether the variable takes integer values (a categorical one: its levels'
    /// positions).
    pub fn is_discrete(self) -> bool {
        matches!(self, Scale::Integer | Scale::Categorical)
    }
}

/// How one coordinate of the unit cube varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Continuous,
    /// `n` consecutive integers, each owning an equal share of the unit interval.
    Integers(usize),
    /// `n` unordered levels, shares as for the integers.
    Levels(usize),
}

impl Kind {
    /// The number of values of a discrete coordinate; None for a continuous one.
    pub fn count(self) -> Option<usize> {
        match self {
            Kind::Continuous => None,
            Kind::Integers(n) | Kind::Levels(n) => Some(n),
        }
    }

    /// The centre of the share holding `u`: where a discrete coordinate's value sits in the
    /// unit interval (the same arithmetic as [`Space::to_unit`], so the two agree exactly).
    pub fn snap(self, u: f64) -> f64 {
        match self.count() {
            None => u,
            Some(n) => (Kind::position(u, n) as f64 + 0.5) / n as f64,
        }
    }

    /// Which of `n` shares holds `u`.
    fn position(u: f64, n: usize) -> usize {
        ((u * n as f64).floor().max(0.0) as usize).min(n - 1)
    }
}

impl Space {
    pub fn of(problem: &Problem) -> Space {
        let scale = |c: &pinnbo_dsl::ir::Coordinate| match (c.is_categorical(), c.integer, c.log) {
            (true, _, _) => Scale::Categorical,
            (false, true, _) => Scale::Integer,
            (false, false, true) => Scale::Log,
            (false, false, false) => Scale::Linear,
        };
        Space {
            lo: problem.lower(),
            hi: problem.upper(),
            scales: problem.coords.iter().map(scale).collect(),
            known: KnownConstraints::of(problem),
        }
    }

    /// A uniform point of the cube that holds the known constraints (drawn again while one
    /// breaks, up to [`FEASIBLE_SEARCH`] times: the run refuses a point that still breaks one).
    pub fn uniform_point(&self, rng: &mut impl rand::Rng) -> Vec<f64> {
        let mut draw = || {
            (0..self.dim())
                .map(|_| rng.random::<f64>())
                .collect::<Vec<f64>>()
        };
        let mut u = draw();
        for _ in 0..FEASIBLE_SEARCH {
            if self.admits(&u) {
                break;
            }
            u = draw();
        }
        u
    }

    /// Whether the unit-cube point `u` holds every known constraint.
    pub fn admits(&self, u: &[f64]) -> bool {
        self.known.is_empty() || self.known.hold_at(&self.to_box(u))
    }

    /// A box of continuous variables on a linear scale.
    pub fn linear(lo: Vec<f64>, hi: Vec<f64>) -> Space {
        let scales = vec![Scale::Linear; lo.len()];
        Space {
            lo,
            hi,
            scales,
            known: KnownConstraints::default(),
        }
    }

    /// Each coordinate's kind.
    pub fn kinds(&self) -> Vec<Kind> {
        (0..self.dim())
            .map(|i| {
                let n = (self.hi[i] - self.lo[i]) as usize + 1;
                match self.scales[i] {
                    Scale::Categorical => Kind::Levels(n),
                    Scale::Integer => Kind::Integers(n),
                    Scale::Linear | Scale::Log => Kind::Continuous,
                }
            })
            .collect()
    }

    pub fn dim(&self) -> usize {
        self.lo.len()
    }

    /// From `[0, 1]^d` to the box.
    pub fn to_box(&self, u: &[f64]) -> Vec<f64> {
        (u.iter().enumerate())
            .map(|(i, u)| {
                let (lo, hi) = (self.lo[i], self.hi[i]);
                match self.scales[i] {
                    // `+ 0.0` turns a rounded −0 into 0.
                    Scale::Integer | Scale::Categorical => {
                        (lo - 0.5 + u * (hi - lo + 1.0)).round().clamp(lo, hi) + 0.0
                    }
                    // The ends exactly: a bound is a value the user wrote.
                    Scale::Log if *u >= 1.0 => hi,
                    Scale::Log => (lo * (hi / lo).powf(*u)).clamp(lo, hi),
                    Scale::Linear => lo + u * (hi - lo),
                }
            })
            .collect()
    }

    /// From the box to `[0, 1]^d`.
    pub fn to_unit(&self, x: &[f64]) -> Vec<f64> {
        (x.iter().enumerate())
            .map(|(i, x)| {
                let (lo, hi) = (self.lo[i], self.hi[i]);
                match self.scales[i] {
                    Scale::Integer | Scale::Categorical => (x - lo + 0.5) / (hi - lo + 1.0),
                    Scale::Log => (x / lo).ln() / (hi / lo).ln(),
                    Scale::Linear => (x - lo) / (hi - lo),
                }
            })
            .collect()
    }

    /// The point of the box nearest to the unit point `u` (in the unit cube) that `taken`
    /// does not hold, moving only the integer variables away from `u`'s own integers, nearer
    /// ones first; None when every such point is taken (or the lattice is too large to
    /// search, more than a million points).
    pub fn nearest_free(&self, u: &[f64], taken: impl Fn(&[f64]) -> bool) -> Option<Vec<f64>> {
        let x = self.to_box(u);
        if !taken(&x) {
            return Some(x);
        }
        let ints: Vec<usize> = (0..self.dim())
            .filter(|&i| self.scales[i].is_discrete())
            .collect();
        let widest = ints
            .iter()
            .map(|&i| self.hi[i] - self.lo[i])
            .fold(0.0, f64::max) as i64;
        let size: f64 = ints
            .iter()
            .map(|&i| self.hi[i] - self.lo[i] + 1.0)
            .product();
        if ints.is_empty() || size > 1e6 {
            return None;
        }
        for radius in 1..=widest {
            let mut best: Option<(f64, Vec<f64>)> = None;
            let side = (2 * radius + 1) as usize;
            for code in 0..side.pow(ints.len() as u32) {
                let offsets: Vec<i64> = (0..ints.len())
                    .map(|k| (code / side.pow(k as u32) % side) as i64 - radius)
                    .collect();
                if offsets.iter().map(|o| o.abs()).max() != Some(radius) {
                    continue;
                }
                let mut y = x.clone();
                for (&i, o) in ints.iter().zip(&offsets) {
                    y[i] += *o as f64;
                }
                let inside = ints
                    .iter()
                    .all(|&i| self.lo[i] <= y[i] && y[i] <= self.hi[i]);
                if !inside || taken(&y) {
                    continue;
                }
                let distance: f64 = (self.to_unit(&y).iter().zip(u))
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum();
                if best.as_ref().is_none_or(|(d, _)| distance < *d) {
                    best = Some((distance, y));
                }
            }
            if let Some((_, y)) = best {
                return Some(y);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log-scale variable's unit coordinate is the position of its log: a third of
    /// [1e-4, 1e-1] is 1e-3; the map and its inverse agree.
    #[test]
    fn a_log_variable_maps_its_logarithm_onto_the_unit_interval() {
        let space = Space {
            lo: vec![1e-4, 0.0],
            hi: vec![1e-1, 2.0],
            scales: vec![Scale::Log, Scale::Linear],
            known: KnownConstraints::default(),
        };
        let x = space.to_box(&[1.0 / 3.0, 0.25]);
        assert!((x[0] - 1e-3).abs() < 1e-15, "{x:?}");
        assert_eq!(x[1], 0.5);
        let u = space.to_unit(&[2e-2, 1.5]);
        let back = space.to_box(&u);
        assert!((back[0] - 2e-2).abs() < 1e-15 && (back[1] - 1.5).abs() < 1e-15);
        assert_eq!(space.to_box(&[0.0, 0.0])[0], 1e-4);
        assert_eq!(space.to_box(&[1.0, 1.0])[0], 1e-1);
    }

    /// Each integer of `1..4` owns a quarter of the unit interval; a taken point moves to
    /// the nearest free integer, and once all are taken there is none.
    #[test]
    fn an_integer_variable_owns_equal_shares_and_taken_points_move() {
        let space = Space {
            lo: vec![1.0, 0.0],
            hi: vec![4.0, 1.0],
            scales: vec![Scale::Integer, Scale::Linear],
            known: KnownConstraints::default(),
        };
        let n = |u: f64| space.to_box(&[u, 0.5])[0];
        assert_eq!(
            [n(0.0), n(0.24), n(0.26), n(0.6), n(1.0)],
            [1.0, 1.0, 2.0, 3.0, 4.0]
        );
        assert_eq!(space.to_unit(&[3.0, 0.5]), vec![0.625, 0.5]);
        let taken = |t: &[Vec<f64>]| {
            let t = t.to_vec();
            move |x: &[f64]| t.iter().any(|p| p.as_slice() == x)
        };
        let at = space.nearest_free(&[0.6, 0.5], taken(&[vec![3.0, 0.5]]));
        assert_eq!(at, Some(vec![2.0, 0.5]));
        let all: Vec<Vec<f64>> = (1..=4).map(|k| vec![k as f64, 0.5]).collect();
        assert_eq!(space.nearest_free(&[0.6, 0.5], taken(&all)), None);
    }
}

/// Outputs shifted and scaled to mean 0, standard deviation 1 (1 when all are equal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standardizer {
    pub mean: f64,
    pub std: f64,
}

impl Standardizer {
    pub fn fit(values: &[f64]) -> Standardizer {
        let (mean, deviation) = crate::numerics::moments::mean_and_deviation(values);
        let std = if deviation > 0.0 { deviation } else { 1.0 };
        Standardizer { mean, std }
    }

    pub fn forward(&self, v: f64) -> f64 {
        (v - self.mean) / self.std
    }

    pub fn inverse(&self, z: f64) -> f64 {
        self.mean + z * self.std
    }
}
