//! The design box and its map to the unit cube, where every surrogate works: linear in
//! each variable, or in its logarithm for a variable on a log scale.

use pinnbo_dsl::Problem;

#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// Which variables are on a log scale (their `lo` is positive).
    pub log: Vec<bool>,
}

impl Space {
    pub fn of(problem: &Problem) -> Space {
        Space {
            lo: problem.lower(),
            hi: problem.upper(),
            log: problem.coords.iter().map(|c| c.log).collect(),
        }
    }

    /// A box with every variable on a linear scale.
    pub fn linear(lo: Vec<f64>, hi: Vec<f64>) -> Space {
        let log = vec![false; lo.len()];
        Space { lo, hi, log }
    }

    pub fn dim(&self) -> usize {
        self.lo.len()
    }

    /// From `[0, 1]^d` to the box.
    pub fn to_box(&self, u: &[f64]) -> Vec<f64> {
        (u.iter().enumerate())
            .map(|(i, u)| {
                let (lo, hi) = (self.lo[i], self.hi[i]);
                match self.log[i] {
                    true => (lo.ln() + u * (hi / lo).ln()).exp().clamp(lo, hi),
                    false => lo + u * (hi - lo),
                }
            })
            .collect()
    }

    /// From the box to `[0, 1]^d`.
    pub fn to_unit(&self, x: &[f64]) -> Vec<f64> {
        (x.iter().enumerate())
            .map(|(i, x)| {
                let (lo, hi) = (self.lo[i], self.hi[i]);
                match self.log[i] {
                    true => (x / lo).ln() / (hi / lo).ln(),
                    false => (x - lo) / (hi - lo),
                }
            })
            .collect()
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
            log: vec![true, false],
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
}

/// Outputs shifted and scaled to mean 0, standard deviation 1 (1 when all are equal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standardizer {
    pub mean: f64,
    pub std: f64,
}

impl Standardizer {
    pub fn fit(values: &[f64]) -> Standardizer {
        let n = values.len().max(1) as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        let std = if var > 0.0 { var.sqrt() } else { 1.0 };
        Standardizer { mean, std }
    }

    pub fn forward(&self, v: f64) -> f64 {
        (v - self.mean) / self.std
    }

    pub fn inverse(&self, z: f64) -> f64 {
        self.mean + z * self.std
    }
}
