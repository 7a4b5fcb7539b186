//! Whether the fitted prior could have produced the pde's targets (docs/algorithms.md §8).
//! The fit conditions on the targets and never scores them, so it can settle on a prior far
//! too small for them; physics-gp's check then drops the pde.

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The pde's targets against the fitted prior.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetSpread {
    /// S: the mean square of the targets, each less the prior mean's share and over its
    /// prior predictive standard deviation (noise included). E S = 1 when the targets are a
    /// draw from the prior.
    pub mean_square: f64,
    /// ν = N² / ‖R‖²_F, R the N targets' prior correlation: N for independent equations, 1
    /// for equations that are all one. Var S = 2 / ν under the prior.
    pub independent: f64,
}

impl TargetSpread {
    /// S's `probability` quantile under the prior, by the scaled χ² with S's mean and
    /// variance (Box, 1954): χ²_ν's quantile over ν. At ν = 1 it is exact, and the largest
    /// over every correlation for any probability above 0.785 (Székely and Bakirov, 2003).
    pub fn quantile(&self, probability: f64) -> f64 {
        let nu = self.independent.max(1.0);
        ChiSquared::new(nu).map_or(f64::INFINITY, |c| c.inverse_cdf(probability) / nu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quantile_is_chi_square_over_its_degrees_of_freedom() {
        let at = |independent| TargetSpread {
            mean_square: 1.0,
            independent,
        };
        approx::assert_relative_eq!(at(1.0).quantile(0.999), 10.8276, max_relative = 1e-4);
        approx::assert_relative_eq!(
            at(100.0).quantile(0.999),
            149.449 / 100.0,
            max_relative = 1e-4
        );
        // Towards 1 as the equations become independent, from above.
        assert!(at(1e5).quantile(0.999) > 1.0 && at(1e5).quantile(0.999) < 1.02);
    }
}
