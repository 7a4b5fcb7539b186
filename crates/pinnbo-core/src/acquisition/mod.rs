//! Acquisition functions (minimization form) and their optimization over the unit cube.
//!
//! Candidates are Sobol points scrambled from the step's random stream, scored in parallel;
//! with refinement on (the default), the best few are then improved: by projected L-BFGS
//! from the best ten where the score's gradient is exact (the GP methods,
//! [`maximize_smooth`]), else by projected gradient steps with backtracking, the gradient
//! taken by central differences (every acquisition here is smooth where it is positive). `acquisition random` keeps the papers' plain
//! candidate-set version for faithful comparisons. Both stay inside a trust region when the
//! search has one (`trust_region`).

pub mod trust_region;

use crate::acquisition::trust_region::{Domain, Region};
use crate::strategies::methods::choice;
use crate::strategies::Observed;
use crate::surrogates::bounded::{self, Stop};
use pinnbo_dsl::methods::MethodSettings;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use statrs::distribution::{Continuous, ContinuousCDF, Normal};

/// Expected improvement below `best` of a normal prediction: `u Φ(u/s) + s φ(u/s)`,
/// `u = best − mean`; `max(u, 0)` when `s = 0`.
pub fn expected_improvement(best: f64, mean: f64, std: f64) -> f64 {
    let u = best - mean;
    if std <= 0.0 {
        return u.max(0.0);
    }
    let n = Normal::standard();
    let z = u / std;
    u * n.cdf(z) + std * n.pdf(z)
}

/// `log EI`, finite wherever `std > 0` however far below the incumbent the prediction is:
/// EI itself underflows to 0 a few standard deviations away, which leaves the candidates
/// tied and the refinement without a gradient. With z = (best − mean)/std,
/// EI = std · h(z), h(z) = φ(z) + z Φ(z); below z = −20 (where the direct form has lost two
/// digits to cancellation) h(z) = φ(z) (1/z² − 3/z⁴ + 15/z⁶ − ..), the asymptotic series of
/// the Mills ratio.
pub fn log_expected_improvement(best: f64, mean: f64, std: f64) -> f64 {
    let u = best - mean;
    if std <= 0.0 {
        return u.max(0.0).ln();
    }
    let z = u / std;
    let log_h = if z > -20.0 {
        let n = Normal::standard();
        (n.pdf(z) + z * n.cdf(z)).ln()
    } else {
        log_pdf(z) + (z * z).recip().ln() + mills_tail(z).ln()
    };
    std.ln() + log_h
}

/// `log Φ(−mean/std)`: the log probability that a normal prediction is `<= 0`, finite far
/// into the tail (Φ(−a) = φ(a)/a · (1 − 1/a² + 3/a⁴ − ..) below −20).
pub fn log_probability_nonpositive(mean: f64, std: f64) -> f64 {
    if std <= 0.0 {
        return if mean <= 0.0 { 0.0 } else { f64::NEG_INFINITY };
    }
    let x = -mean / std;
    if x > -20.0 {
        Normal::standard().cdf(x).ln()
    } else {
        log_pdf(x) - (-x).ln() + mills_series(x).ln()
    }
}

/// log φ(z).
fn log_pdf(z: f64) -> f64 {
    -0.5 * z * z - 0.5 * (2.0 * std::f64::consts::PI).ln()
}

/// 1 − 1/z² + 3/z⁴ − 15/z⁶ + 105/z⁸: a Φ(−a)/φ(a) for a = |z| ≥ 20, to 1e-10.
fn mills_series(z: f64) -> f64 {
    let r = (z * z).recip();
    1.0 - r * (1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r)))
}

/// z² h(z)/φ(z) = 1 − 3/z² + 15/z⁴ − 105/z⁶ + 945/z⁸ for z ≤ −20, to 1e-10.
fn mills_tail(z: f64) -> f64 {
    let r = (z * z).recip();
    1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r * (1.0 - 9.0 * r)))
}

/// The probability that a normal prediction is `<= 0`.
pub fn probability_nonpositive(mean: f64, std: f64) -> f64 {
    if std <= 0.0 {
        return if mean <= 0.0 { 1.0 } else { 0.0 };
    }
    Normal::standard().cdf(-mean / std)
}

/// How the acquisition is optimized.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    pub candidates: usize,
    /// Gradient refinement of the best candidates (false: the papers' candidate set only).
    pub refine: bool,
    /// The whole box, or a trust region around the incumbent.
    pub region: Region,
}

impl Search {
    /// Where the search after `history` looks, in `d` dimensions.
    pub fn domain(&self, history: &[Observed], d: usize) -> Domain {
        Domain {
            d,
            region: self.region.resolve(history, d),
            faces: false,
        }
    }
}

impl Search {
    /// The `candidates`, `acquisition` and `region` settings of a method that declares them.
    pub fn from_settings(s: &MethodSettings) -> Search {
        Search {
            candidates: s.count("candidates"),
            refine: s.name("acquisition") == "refine",
            region: choice(s, "region", Region::from_name),
        }
    }
}

impl Default for Search {
    /// The neural methods' default: a trust region above 20 dimensions.
    fn default() -> Search {
        Search {
            candidates: 2048,
            refine: true,
            region: Region::Auto,
        }
    }
}

const REFINED: usize = 5;
const REFINE_STEPS: usize = 30;

/// Scores many points at once: rows of a flat `[n, d]` slice in, one score per row out.
pub type BatchScore<'a> = dyn Fn(&[f64]) -> Vec<f64> + Sync + 'a;

/// Candidates are scored in batches of at most this many rows, the batches in parallel: small
/// enough that a width-500 network's activations stay in cache and many batches share the
/// threads, instead of each batch's products synchronizing them.
const BATCH: usize = 512;

/// The point of `domain` with the largest `score`, and the score; `score` takes one point
/// and is called from several threads.
pub fn maximize(
    score: &(dyn Fn(&[f64]) -> f64 + Sync),
    domain: &Domain,
    search: Search,
    rng: &mut ChaCha8Rng,
) -> (Vec<f64>, f64) {
    let batch = |flat: &[f64]| flat.par_chunks(domain.d).map(score).collect::<Vec<f64>>();
    maximize_batch(&batch, None, domain, search, rng)
}

/// As [`maximize`] for a score evaluated a batch at a time (a network's forward pass).
/// With `screen` (a cheaper approximation of `score`), the candidates are ranked by it and
/// only the best few are scored (and refined) by `score`.
pub fn maximize_batch(
    score: &BatchScore,
    screen: Option<&BatchScore>,
    domain: &Domain,
    search: Search,
    rng: &mut ChaCha8Rng,
) -> (Vec<f64>, f64) {
    let d = domain.d;
    let seed = rng.random::<u64>();
    let flat = domain.candidates(search.candidates.max(1), seed);
    let rank = screen.unwrap_or(score);
    let mut scored: Vec<(Vec<f64>, f64)> = flat
        .par_chunks(BATCH * d)
        .flat_map_iter(|chunk| {
            let values = rank(chunk);
            chunk
                .chunks(d)
                .zip(values)
                .map(|(p, v)| (p.to_vec(), finite_or_worst(v)))
                .collect::<Vec<_>>()
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    if screen.is_some() {
        scored.truncate(REFINED);
        let flat: Vec<f64> = scored.iter().flat_map(|(p, _)| p.clone()).collect();
        for ((_, s), v) in scored.iter_mut().zip(score(&flat)) {
            *s = finite_or_worst(v);
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    if search.refine {
        let refined: Vec<(Vec<f64>, f64)> = scored
            .iter()
            .take(REFINED)
            .cloned()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(p, s)| {
                let bounds = domain.bounds_at(&p);
                refine(score, p, s, &bounds)
            })
            .collect();
        scored.extend(refined);
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    scored.swap_remove(0)
}

fn finite_or_worst(v: f64) -> f64 {
    if v.is_nan() {
        f64::NEG_INFINITY
    } else {
        v
    }
}

/// A score with its gradient in the point; None where it cannot be evaluated.
pub type SmoothScore<'a> = dyn Fn(&[f64]) -> Option<(f64, Vec<f64>)> + Sync + 'a;

/// The same acquisition's values alone at many points at once (the candidates' screening).
pub type ScreenScore<'a> = dyn Fn(&[Vec<f64>]) -> Vec<f64> + Sync + 'a;

/// Quasi-Newton starts of [`maximize_smooth`]: the best this many candidates.
const SMOOTH_STARTS: usize = 10;
/// When a start's projected L-BFGS stops.
const SMOOTH_STOP: Stop = Stop {
    iterations: 100,
    gradient: 1e-8,
    decrease: 1e-12,
};

/// As [`maximize`] for a score with an exact gradient: the candidates are ranked by their
/// values from `screen` (all at once), and with refinement on, projected L-BFGS runs from the best ten of them in parallel
/// (`surrogates::bounded`), the best result kept (ties in start order).
pub fn maximize_smooth(
    score: &SmoothScore,
    screen: &ScreenScore,
    domain: &Domain,
    search: Search,
    rng: &mut ChaCha8Rng,
) -> (Vec<f64>, f64) {
    let d = domain.d;
    let seed = rng.random::<u64>();
    let flat = domain.candidates(search.candidates.max(1), seed);
    let points: Vec<Vec<f64>> = flat.chunks(d).map(<[f64]>::to_vec).collect();
    let values = screen(&points);
    let mut scored: Vec<(Vec<f64>, f64)> = points
        .into_iter()
        .zip(values.into_iter().map(finite_or_worst))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    if search.refine {
        let negated = |p: &[f64]| {
            let (v, g) = score(p)?;
            (v.is_finite() && g.iter().all(|x| x.is_finite()))
                .then(|| (-v, g.into_iter().map(|x| -x).collect()))
        };
        let refined: Vec<(Vec<f64>, f64)> = scored
            .iter()
            .take(SMOOTH_STARTS)
            .cloned()
            .collect::<Vec<_>>()
            .into_par_iter()
            .filter_map(|(p, _)| {
                let (lo, hi): (Vec<f64>, Vec<f64>) = domain.bounds_at(&p).into_iter().unzip();
                let (v, x) = bounded::minimize(&negated, &p, &lo, &hi, SMOOTH_STOP)?;
                Some((x, -v))
            })
            .collect();
        scored.extend(refined);
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    scored.swap_remove(0)
}

/// Projected gradient ascent with backtracking from `p` within `bounds`; the gradient by
/// central differences, all 2d shifted points scored as one batch.
fn refine(
    score: &BatchScore,
    mut p: Vec<f64>,
    mut s: f64,
    bounds: &[(f64, f64)],
) -> (Vec<f64>, f64) {
    let d = p.len();
    let h = 1e-6;
    // A twentieth of the widest interval: 0.05 in the whole cube.
    let mut step = 0.05 * bounds.iter().map(|(lo, hi)| hi - lo).fold(0.0, f64::max);
    for _ in 0..REFINE_STEPS {
        let mut shifted = Vec::with_capacity(2 * d * d);
        let mut widths = Vec::with_capacity(d);
        for i in 0..d {
            let (up, down) = ((p[i] + h).min(bounds[i].1), (p[i] - h).max(bounds[i].0));
            for value in [up, down] {
                shifted.extend_from_slice(&p);
                let last = shifted.len() - d + i;
                shifted[last] = value;
            }
            widths.push(up - down);
        }
        let values = score(&shifted);
        let grad: Vec<f64> = (0..d)
            .map(|i| {
                if widths[i] > 0.0 {
                    let (up, down) = (values[2 * i], values[2 * i + 1]);
                    (finite_or_worst(up) - finite_or_worst(down)) / widths[i]
                } else {
                    0.0
                }
            })
            .collect();
        let norm = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
        if !norm.is_finite() || norm == 0.0 {
            break;
        }
        let mut improved = false;
        while step > 1e-6 {
            let q: Vec<f64> = p
                .iter()
                .zip(&grad)
                .zip(bounds)
                .map(|((x, g), (lo, hi))| (x + step * g / norm).clamp(*lo, *hi))
                .collect();
            let sq = finite_or_worst(score(&q)[0]);
            if sq > s {
                p = q;
                s = sq;
                step *= 1.5;
                improved = true;
                break;
            }
            step *= 0.5;
        }
        if !improved {
            break;
        }
    }
    (p, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// From 16 raw candidates, the quasi-Newton starts reach a known maximum inside the cube
    /// and one on its boundary (where the unconstrained optimum lies outside).
    #[test]
    fn the_smooth_search_finds_a_known_maximum() {
        let domain = Domain::cube(3);
        let search = Search {
            candidates: 16,
            refine: true,
            region: Region::Global,
        };
        for (centre, expected) in [
            ([0.3, 0.71, 0.52], [0.3, 0.71, 0.52]),
            ([0.3, 1.4, -0.2], [0.3, 1.0, 0.0]),
        ] {
            let score = |u: &[f64]| {
                let value = -u
                    .iter()
                    .zip(&centre)
                    .map(|(a, b)| 3.0 * (a - b).powi(2))
                    .sum::<f64>();
                let grad = u.iter().zip(&centre).map(|(a, b)| -6.0 * (a - b)).collect();
                Some((value, grad))
            };
            let screen = |points: &[Vec<f64>]| -> Vec<f64> {
                points.iter().map(|p| score(p).unwrap().0).collect()
            };
            let (best, _) = maximize_smooth(
                &score,
                &screen,
                &domain,
                search,
                &mut ChaCha8Rng::seed_from_u64(4),
            );
            for (b, e) in best.iter().zip(expected) {
                assert!((b - e).abs() < 1e-6, "{best:?} vs {expected:?}");
            }
            // The raw candidates alone are far from it.
            let plain = Search {
                refine: false,
                ..search
            };
            let (raw, _) = maximize_smooth(
                &score,
                &screen,
                &domain,
                plain,
                &mut ChaCha8Rng::seed_from_u64(4),
            );
            assert!(
                raw.iter().zip(expected).any(|(b, e)| (b - e).abs() > 1e-3),
                "{raw:?}"
            );
        }
    }

    /// On the faces, every candidate lies on one, and the quasi-Newton search stays on the
    /// face it starts from: a function highest at the cube's centre is maximized at the
    /// centre of a face.
    #[test]
    fn a_search_on_the_faces_stays_on_them() {
        let domain = Domain {
            faces: true,
            ..Domain::cube(3)
        };
        let flat = domain.candidates(64, 7);
        for p in flat.chunks(3) {
            assert!(
                p.iter().any(|v| *v == 0.0 || *v == 1.0),
                "{p:?} is on no face"
            );
        }
        let centre = [0.5, 0.45, 0.5];
        let score = |u: &[f64]| {
            let value = -u
                .iter()
                .zip(&centre)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>();
            let grad = u.iter().zip(&centre).map(|(a, b)| -2.0 * (a - b)).collect();
            Some((value, grad))
        };
        let screen = |points: &[Vec<f64>]| -> Vec<f64> {
            points.iter().map(|p| score(p).unwrap().0).collect()
        };
        let search = Search {
            candidates: 64,
            refine: true,
            region: Region::Global,
        };
        let (best, _) = maximize_smooth(
            &score,
            &screen,
            &domain,
            search,
            &mut ChaCha8Rng::seed_from_u64(1),
        );
        // The nearest faces are y = 0 and y = 1, at 0.45 and 0.55: y = 0 wins.
        for (b, e) in best.iter().zip([0.5, 0.0, 0.5]) {
            assert!((b - e).abs() < 1e-6, "{best:?}");
        }
    }

    /// Log EI is the log of EI where EI is representable, continuous where the tail series
    /// takes over, and finite (and still decreasing) far beyond where EI underflows.
    #[test]
    fn log_expected_improvement_is_the_log_of_ei_and_stays_finite() {
        for (best, mean, std) in [
            (0.0, -1.0, 0.5),
            (0.0, 0.0, 1.0),
            (0.0, 3.0, 1.0),
            (1.0, 9.0, 0.5),
        ] {
            let (log, plain) = (
                log_expected_improvement(best, mean, std),
                expected_improvement(best, mean, std).ln(),
            );
            assert!(
                (log - plain).abs() < 1e-9 * plain.abs().max(1.0),
                "{log} vs {plain}"
            );
        }
        let (below, above) = (
            log_expected_improvement(0.0, 20.0 + 1e-9, 1.0),
            log_expected_improvement(0.0, 20.0 - 1e-9, 1.0),
        );
        assert!((below - above).abs() < 1e-7, "{below} vs {above}");
        assert_eq!(expected_improvement(0.0, 60.0, 1.0), 0.0);
        let (far, farther) = (
            log_expected_improvement(0.0, 60.0, 1.0),
            log_expected_improvement(0.0, 61.0, 1.0),
        );
        assert!(far.is_finite() && farther < far, "{far} {farther}");
        // ln h(−60) = −1800 − ½ ln 2π − 2 ln 60 + ln(1 − 3/3600 + 15/3600² − ..).
        let expected = -1800.0 - 0.5 * (2.0 * std::f64::consts::PI).ln() - 2.0 * 60f64.ln()
            + (1.0 - 3.0 / 3600.0 + 15.0 / 3600f64.powi(2) - 105.0 / 3600f64.powi(3)).ln();
        assert!((far - expected).abs() < 1e-10, "{far} vs {expected}");
    }

    #[test]
    fn log_probability_of_feasibility_is_continuous_into_the_tail() {
        let p = log_probability_nonpositive(1.0, 2.0);
        assert!((p - probability_nonpositive(1.0, 2.0).ln()).abs() < 1e-12);
        let (a, b) = (
            log_probability_nonpositive(20.0 - 1e-9, 1.0),
            log_probability_nonpositive(20.0 + 1e-9, 1.0),
        );
        assert!((a - b).abs() < 1e-7, "{a} vs {b}");
        assert!(log_probability_nonpositive(80.0, 1.0).is_finite());
        assert_eq!(log_probability_nonpositive(-1.0, 0.0), 0.0);
    }
    use rand_distr::{Distribution, Normal as Gauss};

    #[test]
    fn expected_improvement_matches_monte_carlo() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for (best, mean, std) in [
            (0.0_f64, 0.3_f64, 0.5_f64),
            (1.0, 0.2, 0.1),
            (-2.0, 1.0, 2.0),
        ] {
            let g = Gauss::new(mean, std).unwrap();
            let n = 400_000;
            let mc = (0..n)
                .map(|_| (best - g.sample(&mut rng)).max(0.0_f64))
                .sum::<f64>()
                / n as f64;
            let exact = expected_improvement(best, mean, std);
            // Monte Carlo standard error is below std / sqrt(n) ≈ 3e-3 here.
            assert!(
                (mc - exact).abs() < 4.0 * std / (n as f64).sqrt(),
                "{exact} vs {mc}"
            );
        }
        assert_eq!(expected_improvement(1.0, 0.25, 0.0), 0.75);
    }

    #[test]
    fn refinement_finds_a_smooth_maximum_between_candidates() {
        let score = |p: &[f64]| -((p[0] - 0.123456).powi(2) + (p[1] - 0.654321).powi(2));
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let plain = maximize(
            &score,
            &Domain::cube(2),
            Search {
                candidates: 64,
                refine: false,
                region: Region::Global,
            },
            &mut rng,
        );
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let refined = maximize(
            &score,
            &Domain::cube(2),
            Search {
                candidates: 64,
                refine: true,
                region: Region::Global,
            },
            &mut rng,
        );
        assert!(refined.1 > plain.1);
        assert!(refined.1 > -1e-8, "{:?}", refined);
    }

    /// A screen ranks the candidates only: the point and score returned are the true
    /// score's (here the screen is offset by 1000 and coarsely rounded).
    #[test]
    fn a_screen_ranks_but_the_score_decides() {
        let f = |p: &[f64]| -((p[0] - 0.3).powi(2) + (p[1] - 0.7).powi(2));
        let score = |flat: &[f64]| flat.chunks(2).map(f).collect::<Vec<f64>>();
        let screen = |flat: &[f64]| {
            flat.chunks(2)
                .map(|p| (f(p) * 100.0).round() / 100.0 + 1000.0)
                .collect::<Vec<f64>>()
        };
        let search = Search {
            candidates: 256,
            refine: true,
            region: Region::Global,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (p, s) = maximize_batch(&score, Some(&screen), &Domain::cube(2), search, &mut rng);
        assert!((s - f(&p)).abs() < 1e-15, "{s} vs {}", f(&p));
        assert!(s > -1e-8, "{p:?} {s}");
    }
}
