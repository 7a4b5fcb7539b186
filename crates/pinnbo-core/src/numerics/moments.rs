//! The mean and standard deviation of values at any magnitude: beyond about 1e154 the
//! squares of deviations overflow and below about 1e-154 they vanish, so there the moments
//! are taken of the values divided by their largest magnitude.

/// The mean and the (population) standard deviation of `values`; the deviation is 0 when
/// all are equal (or none is given), and both are 0 when a value is not finite.
pub fn mean_and_deviation(values: &[f64]) -> (f64, f64) {
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let equal = values.windows(2).all(|w| w[0] == w[1]);
    if equal || (mean.is_finite() && var.is_finite() && var > 1e-290) {
        return (mean, if equal { 0.0 } else { var.sqrt() });
    }
    let scale = values.iter().map(|v| v.abs()).fold(0.0, f64::max);
    if !(scale.is_finite() && scale > 0.0) {
        return (0.0, 0.0);
    }
    let mean = values.iter().map(|v| v / scale).sum::<f64>() / n;
    let var = values
        .iter()
        .map(|v| (v / scale - mean).powi(2))
        .sum::<f64>()
        / n;
    (scale * mean, scale * var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same values in ordinary units, times 1e250 and times 1e-250: the same moments,
    /// scaled.
    #[test]
    fn moments_hold_at_any_magnitude() {
        let values = [1.0, 2.0, 4.0, 7.0];
        let (mean, sd) = mean_and_deviation(&values);
        assert_eq!((mean, sd), (3.5, 5.25f64.sqrt()));
        for scale in [1e250, 1e-250] {
            let scaled: Vec<f64> = values.iter().map(|v| v * scale).collect();
            let (m, s) = mean_and_deviation(&scaled);
            assert!((m / scale - mean).abs() < 1e-12 && (s / scale - sd).abs() < 1e-12);
        }
        assert_eq!(mean_and_deviation(&[2.0, 2.0]), (2.0, 0.0));
    }
}
