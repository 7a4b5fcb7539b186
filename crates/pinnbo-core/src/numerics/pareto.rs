//! Several objectives, all minimized: Pareto dominance, the hypervolume a set of points
//! dominates up to a reference point, and the expected improvement of that hypervolume by a
//! point whose objectives are independent Gaussians.

use statrs::distribution::{Continuous, ContinuousCDF, Normal};

fn cdf(z: f64) -> f64 {
    Normal::standard().cdf(z)
}

fn pdf(z: f64) -> f64 {
    Normal::standard().pdf(z)
}

/// `a` is no worse than `b` in every objective and better in one.
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y) && a.iter().zip(b).any(|(x, y)| x < y)
}

/// The indices of the points no other dominates, in their order; of equal points, the first.
pub fn non_dominated(points: &[Vec<f64>]) -> Vec<usize> {
    (0..points.len())
        .filter(|&i| {
            let p = &points[i];
            !points
                .iter()
                .enumerate()
                .any(|(j, q)| dominates(q, p) || (j < i && q == p))
        })
        .collect()
}

/// The measure of the region some point dominates and `reference` bounds:
/// `{z : p ≤ z ≤ reference for some p}`. Exact, by slicing along the last objective:
/// `O(n log n)` for `n` points in two objectives, a factor `n` more for each further one
/// (the fronts of a run's budget).
pub fn hypervolume(points: &[Vec<f64>], reference: &[f64]) -> f64 {
    let inside: Vec<&[f64]> = (points.iter())
        .filter(|p| p.iter().zip(reference).all(|(v, r)| v < r))
        .map(Vec::as_slice)
        .collect();
    slices(&inside, reference)
}

fn slices(points: &[&[f64]], reference: &[f64]) -> f64 {
    let m = reference.len();
    if points.is_empty() {
        return 0.0;
    }
    if m == 1 {
        let lowest = points.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min);
        return reference[0] - lowest;
    }
    let mut sorted: Vec<&[f64]> = points.to_vec();
    sorted.sort_by(|a, b| a[m - 1].total_cmp(&b[m - 1]));
    if m == 2 {
        // Each slice's width is the lowest first objective so far: a running minimum gives
        // the same numbers as the general case's one-objective call, in O(n) after the sort.
        let mut lowest = f64::INFINITY;
        let mut total = 0.0;
        for (i, p) in sorted.iter().enumerate() {
            lowest = lowest.min(p[0]);
            let top = sorted.get(i + 1).map_or(reference[1], |q| q[1]);
            let depth = top - p[1];
            if depth > 0.0 {
                total += depth * (reference[0] - lowest);
            }
        }
        return total;
    }
    let mut total = 0.0;
    for i in 0..sorted.len() {
        let top = sorted.get(i + 1).map_or(reference[m - 1], |p| p[m - 1]);
        let depth = top - sorted[i][m - 1];
        if depth > 0.0 {
            let below: Vec<&[f64]> = sorted[..=i].iter().map(|p| &p[..m - 1]).collect();
            total += depth * slices(&below, &reference[..m - 1]);
        }
    }
    total
}

/// The default reference point: each objective's worst value among `values` (the initial
/// design's), moved a tenth of its spread further (1e-3 of its size, or 1e-3, when all
/// agree), so that the design's extreme points still add volume.
pub fn default_reference(values: &[Vec<f64>]) -> Option<Vec<f64>> {
    let m = values.first()?.len();
    Some(
        (0..m)
            .map(|k| {
                let worst = values
                    .iter()
                    .map(|v| v[k])
                    .fold(f64::NEG_INFINITY, f64::max);
                let best = values.iter().map(|v| v[k]).fold(f64::INFINITY, f64::min);
                let spread = worst - best;
                let margin = match spread > 0.0 {
                    true => 0.1 * spread,
                    false => 1e-3 * worst.abs().max(1.0),
                };
                worst + margin
            })
            .collect(),
    )
}

/// The expected hypervolume improvement of a point whose two objectives are independent
/// `N(mean[k], sd[k]²)`, over the non-dominated `front` (two objectives, any order) and
/// `reference`. Exact: the region the front leaves undominated below the reference is a
/// staircase of strips `[a_i, b_i] × (−∞, c_i]`, and within a strip the improvement is
/// `(b_i − max(a_i, y₁))₊ (c_i − y₂)₊`, a product of independent factors whose expectations
/// are `E(b − Y)₊ − E(a − Y)₊` and `E(c − Y)₊`.
pub fn expected_improvement_2d(
    front: &[Vec<f64>],
    reference: &[f64],
    mean: &[f64],
    sd: &[f64],
) -> f64 {
    let mut pts: Vec<&Vec<f64>> = (front.iter())
        .filter(|p| p[0] < reference[0] && p[1] < reference[1])
        .collect();
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
    // E(c − Y)₊ for Y ~ N(μ, σ²).
    let below = |c: f64, mu: f64, s: f64| {
        if c == f64::NEG_INFINITY {
            return 0.0;
        }
        if s <= 0.0 {
            return (c - mu).max(0.0);
        }
        let z = (c - mu) / s;
        (c - mu) * cdf(z) + s * pdf(z)
    };
    let mut total = 0.0;
    // Strip i spans from the i-th point's first objective (−∞ before the first) to the next
    // point's (the reference after the last), under the i-th point's second (the reference
    // before the first).
    let mut a = f64::NEG_INFINITY;
    let mut c = reference[1];
    for i in 0..=pts.len() {
        let b = pts.get(i).map_or(reference[0], |p| p[0]);
        let width = below(b, mean[0], sd[0]) - below(a, mean[0], sd[0]);
        total += width.max(0.0) * below(c, mean[1], sd[1]);
        if let Some(p) = pts.get(i) {
            a = p[0];
            c = c.min(p[1]);
        }
    }
    total
}

/// The average over `draws` (objective vectors) of the hypervolume each adds to `front`:
/// the expected hypervolume improvement by sampling, for any number of objectives and any
/// predictive distribution; with two Gaussian objectives [`expected_improvement_2d`] is
/// exact instead.
pub fn mean_improvement(front: &[Vec<f64>], reference: &[f64], draws: &[Vec<f64>]) -> f64 {
    let base = hypervolume(front, reference);
    let mut with = front.to_vec();
    with.push(Vec::new());
    let total: f64 = draws
        .iter()
        .map(|y| {
            if !y.iter().zip(reference).all(|(v, r)| v < r) {
                return 0.0;
            }
            *with.last_mut().expect("pushed") = y.clone();
            (hypervolume(&with, reference) - base).max(0.0)
        })
        .sum();
    total / draws.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rand_distr::StandardNormal;

    /// Hypervolumes worked by hand: a staircase in 2-D, a cube's corner in 3-D, points past
    /// the reference counted as nothing, a dominated point adding nothing.
    #[test]
    fn the_hypervolume_of_known_fronts() {
        let front = vec![vec![1.0, 3.0], vec![2.0, 2.0], vec![3.0, 1.0]];
        // Columns of width 1 and heights 1, 2, 3 under the reference (4, 4).
        assert_eq!(hypervolume(&front, &[4.0, 4.0]), 6.0);
        let mut more = front.clone();
        more.push(vec![2.5, 2.5]);
        more.push(vec![5.0, 0.0]);
        assert_eq!(hypervolume(&more, &[4.0, 4.0]), 6.0);
        let cube = vec![vec![0.0, 0.0, 0.0]];
        assert_eq!(hypervolume(&cube, &[2.0, 3.0, 4.0]), 24.0);
        // Two boxes of 2·2·1 overlapping in 1·1·1: 4 + 4 − 1.
        let two = vec![vec![0.0, 1.0, 0.0], vec![1.0, 0.0, 0.0]];
        assert_eq!(hypervolume(&two, &[2.0, 2.0, 1.0]), 3.0);
        assert_eq!(non_dominated(&more), vec![0, 1, 2, 4]);
        // ZDT1's front f₂ = 1 − √f₁ dominates 1 − ∫₀¹ (1 − √f) df = 1 − 1/3 of [0, 1]²,
        // approached by 2001 of its points.
        let zdt1: Vec<Vec<f64>> = (0..=2000)
            .map(|i| {
                let f = i as f64 / 2000.0;
                vec![f, 1.0 - f.sqrt()]
            })
            .collect();
        let hv = hypervolume(&zdt1, &[1.0, 1.0]);
        assert!((hv - 2.0 / 3.0).abs() < 2e-3, "{hv}");
    }

    /// On random sets of up to 8 points in 2 and 3 objectives, the sweep agrees with
    /// inclusion–exclusion over the points' boxes `[p, reference]` (a subset's boxes meet in
    /// the box of their componentwise maximum).
    #[test]
    fn the_hypervolume_agrees_with_inclusion_exclusion() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for m in [2, 3] {
            let reference = vec![1.0; m];
            for n in 1..=8 {
                let points: Vec<Vec<f64>> = (0..n)
                    .map(|_| (0..m).map(|_| rng.random_range(-0.2..1.1)).collect())
                    .collect();
                let mut expected = 0.0;
                for subset in 1..(1u32 << n) {
                    let corner: Vec<f64> = (0..m)
                        .map(|k| {
                            (0..n)
                                .filter(|i| subset & (1 << i) != 0)
                                .map(|i| points[i][k])
                                .fold(f64::NEG_INFINITY, f64::max)
                        })
                        .collect();
                    let volume: f64 = (corner.iter().zip(&reference))
                        .map(|(c, r)| (r - c).max(0.0))
                        .product();
                    let sign = (-1.0f64).powi(subset.count_ones() as i32 + 1);
                    expected += sign * volume;
                }
                let hv = hypervolume(&points, &reference);
                assert!(
                    (hv - expected).abs() < 1e-12,
                    "m {m}, n {n}: {hv} vs {expected}"
                );
            }
        }
    }

    /// The exact two-objective expectation agrees with the sampled one (200 000 draws)
    /// where the point may improve the front in several strips, and with the improvement
    /// itself when the point is certain.
    #[test]
    fn the_exact_expected_improvement_agrees_with_sampling() {
        let front = vec![vec![1.0, 3.0], vec![2.0, 2.0], vec![3.0, 1.0]];
        let reference = [4.0, 4.0];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let samples: Vec<Vec<f64>> = (0..200_000)
            .map(|_| vec![rng.sample(StandardNormal), rng.sample(StandardNormal)])
            .collect();
        for (mean, sd) in [
            ([1.5, 1.5], [0.5, 0.8]),
            ([3.5, 0.5], [1.0, 0.3]),
            ([0.5, 3.5], [0.2, 2.0]),
        ] {
            let exact = expected_improvement_2d(&front, &reference, &mean, &sd);
            let draws: Vec<Vec<f64>> = (samples.iter())
                .map(|z| vec![mean[0] + sd[0] * z[0], mean[1] + sd[1] * z[1]])
                .collect();
            let sampled = mean_improvement(&front, &reference, &draws);
            assert!(
                (exact - sampled).abs() < 0.01 * exact.max(0.1),
                "{mean:?}: {exact} vs {sampled}"
            );
        }
        let certain = expected_improvement_2d(&front, &reference, &[1.5, 1.5], &[0.0, 0.0]);
        let mut with = front.clone();
        with.push(vec![1.5, 1.5]);
        assert!((certain - (hypervolume(&with, &reference) - 6.0)).abs() < 1e-12);
    }
}
