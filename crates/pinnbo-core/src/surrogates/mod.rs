//! The models strategies fit to the history: Gaussian processes, and the neural surrogates
//! with what they share.

pub(crate) mod bounded;
pub(crate) mod dense;
pub mod gp;
pub(crate) mod network;
pub mod neural;
pub mod pde_gp;

use crate::space::Standardizer;
use faer::Mat;

/// What an acquisition asks of a fitted Gaussian model of the objective.
pub trait GpPosterior: Sync {
    /// Mean and variance of the latent function at `u`, standardized units.
    fn predict_standardized(&self, u: &[f64]) -> (f64, f64);

    /// Joint posterior (standardized) at several points: means and covariance.
    fn joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>);

    fn standardizer(&self) -> &Standardizer;

    /// Mean and standard deviation in the data's units.
    fn predict(&self, u: &[f64]) -> (f64, f64) {
        let (m, v) = self.predict_standardized(u);
        let s = self.standardizer();
        (s.inverse(m), v.sqrt() * s.std)
    }
}
