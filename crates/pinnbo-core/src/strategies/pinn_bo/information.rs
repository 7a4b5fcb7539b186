//! The information terms of ν_t: the information gain of the observed points and the
//! interaction information between them and the residual points, from the NTK-PINN Gram
//! blocks at θ0 (docs/algorithms.md §4), in the dual form whose size is the number of
//! points rather than of weights.

use super::PART;
use crate::numerics::cholesky::Spd;
use crate::strategies::{StrategyError, Within};
use crate::surrogates::neural::to_mat;
use faer::Mat;
use pinnbo_ad::tangent::{gram, Factors};

/// `(γ, I)`: the information gain `½ logdet(I + K_uu/λ1)` and the interaction information
/// `½ [logdet(I + K_uu/λ1) + logdet(I + K_rr/λ2) − logdet(I + K̂)]`, K̂ the joint block
/// matrix `[[K_uu/λ1, K_ur/√(λ1λ2)], [K_ru/√(λ1λ2), K_rr/λ2]]` (Sylvester's identity turns
/// the thesis's p x p determinants into these).
pub fn interaction_information(
    k_uu: &Mat<f64>,
    k_ur: &Mat<f64>,
    k_rr: &Mat<f64>,
    lambda1: f64,
    lambda2: f64,
) -> Result<(f64, f64), StrategyError> {
    let logdet_rr = logdet_shifted(k_rr, lambda2)?;
    interaction_with(k_uu, k_ur, k_rr, logdet_rr, lambda1, lambda2)
}

/// `logdet(I + K/λ)`.
pub(super) fn logdet_shifted(k: &Mat<f64>, lambda: f64) -> Result<f64, StrategyError> {
    let n = k.nrows();
    let a = Mat::from_fn(n, n, |i, j| {
        k[(i, j)] / lambda + if i == j { 1.0 } else { 0.0 }
    });
    Ok(Spd::new(&a, "I + K/λ").within(PART)?.log_det())
}

/// `[[a K_uu, b K_ur], [b K_ru, c K_rr]] + diagonal · I`, `[a, b, c] = scales`.
pub(super) fn joint_gram(
    k_uu: &Mat<f64>,
    k_ur: &Mat<f64>,
    k_rr: &Mat<f64>,
    scales: [f64; 3],
    diagonal: f64,
) -> Mat<f64> {
    let (t, r) = (k_uu.nrows(), k_rr.nrows());
    Mat::from_fn(t + r, t + r, |i, j| {
        let k = match (i < t, j < t) {
            (true, true) => scales[0] * k_uu[(i, j)],
            (true, false) => scales[1] * k_ur[(i, j - t)],
            (false, true) => scales[1] * k_ur[(j, i - t)],
            (false, false) => scales[2] * k_rr[(i - t, j - t)],
        };
        k + if i == j { diagonal } else { 0.0 }
    })
}

pub(super) fn interaction_with(
    k_uu: &Mat<f64>,
    k_ur: &Mat<f64>,
    k_rr: &Mat<f64>,
    logdet_rr: f64,
    lambda1: f64,
    lambda2: f64,
) -> Result<(f64, f64), StrategyError> {
    let cross = 1.0 / (lambda1 * lambda2).sqrt();
    let joint = joint_gram(k_uu, k_ur, k_rr, [1.0 / lambda1, cross, 1.0 / lambda2], 1.0);
    let logdet_uu = logdet_shifted(k_uu, lambda1)?;
    let logdet_joint = Spd::new(&joint, "I + K̂").within(PART)?.log_det();
    let gamma = 0.5 * logdet_uu;
    Ok((gamma, 0.5 * (logdet_uu + logdet_rr - logdet_joint)))
}

/// The Gram matrix of two lists of feature sets, blocks side by side.
pub(super) fn block_gram(rows: &[Factors], cols: &[Factors]) -> Result<Mat<f64>, StrategyError> {
    let blocks: Vec<Vec<Mat<f64>>> = rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|c| to_mat(&gram(r, c).within(PART)?))
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let heights: Vec<usize> = blocks.iter().map(|row| row[0].nrows()).collect();
    let widths: Vec<usize> = blocks[0].iter().map(Mat::ncols).collect();
    let mut out = Mat::zeros(heights.iter().sum(), widths.iter().sum());
    let mut top = 0;
    for (row, h) in blocks.iter().zip(&heights) {
        let mut left = 0;
        for (block, w) in row.iter().zip(&widths) {
            for i in 0..*h {
                for j in 0..*w {
                    out[(top + i, left + j)] = block[(i, j)];
                }
            }
            left += w;
        }
        top += h;
    }
    Ok(out)
}
