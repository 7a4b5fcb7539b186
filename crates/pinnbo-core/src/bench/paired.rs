//! A paired test beside the thesis's Welch tests: a bench gives every method of a seed the
//! same initial design and noise, so two methods' final values pair by seed. The one-sided
//! Wilcoxon signed-rank test reads each seed's difference, needs no normality, and is not
//! swamped by a seed where both methods fail alike; final regrets are skewed (one seed at
//! 0.24 beside nineteen below 0.02 is common), which a t-test's variance takes in whole
//! (docs/decisions.md "A paired test in `pinnbo bench`").

use super::stats::TestError;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// A one-sided signed-rank test of H1: the baseline's values exceed the method's, seed by
/// seed (lower being better).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SignedRank {
    /// Seeds whose two values differ (equal ones carry no sign and are dropped).
    pub pairs: usize,
    /// The ranks of |difference| (ties at their average rank) summed where the baseline's
    /// value is the greater.
    pub w_plus: f64,
    pub p_value: f64,
}

/// Up to this many differing pairs the null distribution is counted exactly; above it, the
/// normal approximation with the ties' correction (exact counts grow as pairs³).
const EXACT_UP_TO: usize = 60;

/// `P(W+ ≥ w+)` under H0 (each difference's sign a fair coin) for `(baseline, method)`
/// pairs of the same seed.
pub fn signed_rank_greater(pairs: &[(f64, f64)]) -> Result<SignedRank, TestError> {
    if pairs.len() < 2 {
        return Err(TestError::TooFewPairs(pairs.len()));
    }
    let differences: Vec<f64> = (pairs.iter())
        .map(|(b, m)| b - m)
        .filter(|d| *d != 0.0)
        .collect();
    if differences.is_empty() {
        return Err(TestError::NoDifference);
    }
    let doubled = doubled_ranks(&differences);
    let w2 = positive_sum(&differences, &doubled);
    let p_value = match differences.len() <= EXACT_UP_TO {
        true => exact_upper_tail(&doubled, w2),
        false => normal_upper_tail(&doubled, w2),
    };
    Ok(SignedRank {
        pairs: differences.len(),
        w_plus: w2 as f64 / 2.0,
        p_value,
    })
}

/// Twice each |difference|'s rank (1-based, ties at their average): integers.
fn doubled_ranks(differences: &[f64]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..differences.len()).collect();
    order.sort_by(|&a, &b| differences[a].abs().total_cmp(&differences[b].abs()));
    let mut ranks = vec![0; differences.len()];
    let mut start = 0;
    while start < order.len() {
        let size = (order[start..].iter())
            .take_while(|&&i| differences[i].abs() == differences[order[start]].abs())
            .count();
        // Ranks start + 1 ..= start + size: their sum over the group's size, doubled.
        let doubled = (2 * start + size + 1) as u64;
        order[start..start + size]
            .iter()
            .for_each(|&i| ranks[i] = doubled);
        start += size;
    }
    ranks
}

/// The doubled ranks summed over the positive differences: twice W+.
fn positive_sum(differences: &[f64], doubled: &[u64]) -> u64 {
    (differences.iter().zip(doubled))
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, r)| r)
        .sum()
}

/// The share of the 2ⁿ sign patterns whose doubled positive rank sum is at least `w2`.
fn exact_upper_tail(doubled: &[u64], w2: u64) -> f64 {
    let total: u64 = doubled.iter().sum();
    // ways[s]: the patterns so far whose doubled positive sum is s, as a share of all.
    let mut ways = vec![0.0; total as usize + 1];
    ways[0] = 1.0;
    let mut reach = 0;
    for &r in doubled {
        let r = r as usize;
        for s in (0..=reach).rev() {
            let half = ways[s] / 2.0;
            ways[s] = half;
            ways[s + r] += half;
        }
        reach += r;
    }
    ways[w2 as usize..].iter().sum::<f64>().min(1.0)
}

/// `P(W+ ≥ w+)` by the normal approximation, with the ties' variance correction and a
/// continuity correction of half a rank.
fn normal_upper_tail(doubled: &[u64], w2: u64) -> f64 {
    let n = doubled.len() as f64;
    let mean = n * (n + 1.0) / 4.0;
    let mut sorted = doubled.to_vec();
    sorted.sort_unstable();
    let ties: f64 = (sorted.chunk_by(|a, b| a == b))
        .map(|group| (group.len() as f64).powi(3) - group.len() as f64)
        .sum();
    let variance = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - ties / 48.0;
    let z = (w2 as f64 / 2.0 - mean - 0.5) / variance.sqrt();
    Normal::standard().sf(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// `P(W+ ≥ w+)` by listing every sign pattern of the ranks.
    fn by_enumeration(doubled: &[u64], w2: u64) -> f64 {
        let n = doubled.len();
        let at_least = (0..1u64 << n)
            .filter(|mask| {
                let sum: u64 = (0..n)
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| doubled[i])
                    .sum();
                sum >= w2
            })
            .count();
        at_least as f64 / (1u64 << n) as f64
    }

    #[test]
    fn every_seed_better_has_the_smallest_p_its_count_allows() {
        let pairs: Vec<(f64, f64)> = (0..10).map(|i| (1.0 + i as f64, 0.5)).collect();
        let t = signed_rank_greater(&pairs).unwrap();
        assert_eq!((t.pairs, t.w_plus), (10, 55.0));
        assert_relative_eq!(t.p_value, 1.0 / 1024.0, epsilon = 1e-15);
        // The other direction: every pattern has W+ ≥ 0.
        let back: Vec<(f64, f64)> = pairs.iter().map(|(b, m)| (*m, *b)).collect();
        assert_relative_eq!(signed_rank_greater(&back).unwrap().p_value, 1.0);
    }

    #[test]
    fn ties_take_their_average_rank_and_equal_pairs_are_dropped() {
        // Differences 1, −1, 2, 0, 3, −3, 0.5: |d| ranks 2.5, 2.5, 4, –, 5.5, 5.5, 1.
        let pairs = [
            (2.0, 1.0),
            (1.0, 2.0),
            (4.0, 2.0),
            (7.0, 7.0),
            (3.0, 0.0),
            (0.0, 3.0),
            (1.5, 1.0),
        ];
        let t = signed_rank_greater(&pairs).unwrap();
        assert_eq!(t.pairs, 6);
        assert_relative_eq!(t.w_plus, 2.5 + 4.0 + 5.5 + 1.0);
        let doubled = [5, 5, 8, 11, 11, 2];
        assert_relative_eq!(t.p_value, by_enumeration(&doubled, 26), epsilon = 1e-15);
    }

    #[test]
    fn the_normal_tail_approaches_the_exact_count() {
        let differences: Vec<f64> = (1..=EXACT_UP_TO)
            .map(|i| if i % 3 == 0 { -(i as f64) } else { i as f64 })
            .collect();
        let doubled = doubled_ranks(&differences);
        let w2 = positive_sum(&differences, &doubled);
        let (exact, normal) = (
            exact_upper_tail(&doubled, w2),
            normal_upper_tail(&doubled, w2),
        );
        assert!((exact - normal).abs() < 2e-3, "{exact} vs {normal}");
    }

    #[test]
    fn the_test_refuses_what_it_cannot_test() {
        assert_eq!(
            signed_rank_greater(&[(1.0, 0.0)]),
            Err(TestError::TooFewPairs(1))
        );
        assert_eq!(
            signed_rank_greater(&[(1.0, 1.0), (2.0, 2.0)]),
            Err(TestError::NoDifference)
        );
    }
}
