//! The design box and its map to the unit cube, where every surrogate works.

use pinnbo_dsl::Problem;

#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

impl Space {
    pub fn of(problem: &Problem) -> Space {
        Space {
            lo: problem.lower(),
            hi: problem.upper(),
        }
    }

    pub fn dim(&self) -> usize {
        self.lo.len()
    }

    /// From `[0, 1]^d` to the box.
    pub fn to_box(&self, u: &[f64]) -> Vec<f64> {
        u.iter()
            .zip(self.lo.iter().zip(&self.hi))
            .map(|(u, (lo, hi))| lo + u * (hi - lo))
            .collect()
    }

    /// From the box to `[0, 1]^d`.
    pub fn to_unit(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(self.lo.iter().zip(&self.hi))
            .map(|(x, (lo, hi))| (x - lo) / (hi - lo))
            .collect()
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
