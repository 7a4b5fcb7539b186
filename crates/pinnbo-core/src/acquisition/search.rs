//! Maximizing an acquisition over the unit cube (or a trust region, or the box's faces):
//! Sobol candidates scored in parallel, then the best few refined — by projected L-BFGS where
//! the score's gradient is exact ([`maximize_smooth`]), else by projected gradient steps
//! with central differences ([`maximize_batch`]).

use crate::acquisition::domain::Domain;
use crate::acquisition::trust_region::{resolve, Region};
use crate::history::Observed;
use crate::numerics::quasi_newton::{self, Stop};
use crate::space::Space;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

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
    /// Where the search after `history` looks in `space`.
    pub fn domain(&self, history: &[Observed], space: &Space) -> Domain {
        let d = space.dim();
        Domain {
            region: resolve(self.region, history, d),
            ..Domain::cube(d)
        }
        .with_kinds(space.kinds())
        .within(space)
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
    // A point that breaks a known constraint scores the worst, so no step moves there.
    let score = &|flat: &[f64]| domain.mask(flat, score(flat));
    let masked = screen.map(|s| move |flat: &[f64]| domain.mask(flat, s(flat)));
    let screen = masked.as_ref().map(|s| s as &BatchScore);
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
    let improve = |(p, s): (Vec<f64>, f64)| match search.refine {
        true => {
            let bounds = domain.bounds_at(&p);
            refine(score, p, s, &bounds)
        }
        false => (p, s),
    };
    if search.refine {
        let refined: Vec<(Vec<f64>, f64)> = scored
            .iter()
            .take(REFINED)
            .cloned()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(improve)
            .collect();
        scored.extend(refined);
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    let best = scored.swap_remove(0);
    let score_many = |points: &[Vec<f64>]| score(&points.concat());
    over_lattice(best, domain, &score_many, &improve)
}

/// At most this many moves of [`over_lattice`].
const LATTICE_MOVES: usize = 50;

/// From `start`, the best lattice neighbour ([`Domain::neighbours`]) while it scores
/// higher, the continuous coordinates improved by `improve` after each move: a local search
/// over integers and levels, which a continuous search holds fixed. `start` as it is where
/// no coordinate is discrete.
fn over_lattice(
    start: (Vec<f64>, f64),
    domain: &Domain,
    score_many: &(dyn Fn(&[Vec<f64>]) -> Vec<f64> + Sync),
    improve: &(dyn Fn((Vec<f64>, f64)) -> (Vec<f64>, f64) + Sync),
) -> (Vec<f64>, f64) {
    let mut best = start;
    for _ in 0..LATTICE_MOVES {
        let neighbours = domain.neighbours(&best.0);
        if neighbours.is_empty() || pinnbo_ad::interrupt::requested() {
            break;
        }
        let values = score_many(&neighbours);
        let top = (neighbours
            .into_iter()
            .zip(values.into_iter().map(finite_or_worst)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
        match top {
            Some(moved) if moved.1 > best.1 => {
                let improved = improve(moved.clone());
                best = if improved.1 >= moved.1 {
                    improved
                } else {
                    moved
                };
            }
            _ => break,
        }
    }
    best
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
    // A point that breaks a known constraint cannot be evaluated (L-BFGS steps back) and
    // screens as the worst.
    let score = &|p: &[f64]| domain.admits(p).then(|| score(p)).flatten();
    let screen = &|points: &[Vec<f64>]| match domain.known {
        Some(_) => domain.mask(&points.concat(), screen(points)),
        None => screen(points),
    };
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
    let negated = |p: &[f64]| {
        let (v, g) = score(p)?;
        (v.is_finite() && g.iter().all(|x| x.is_finite()))
            .then(|| (-v, g.into_iter().map(|x| -x).collect()))
    };
    let quasi_newton = |p: &[f64]| {
        let (lo, hi): (Vec<f64>, Vec<f64>) = domain.bounds_at(p).into_iter().unzip();
        let (v, x) = quasi_newton::minimize(&negated, p, &lo, &hi, SMOOTH_STOP)?;
        Some((x, -v))
    };
    if search.refine {
        let refined: Vec<(Vec<f64>, f64)> = scored
            .iter()
            .take(SMOOTH_STARTS)
            .cloned()
            .collect::<Vec<_>>()
            .into_par_iter()
            .filter_map(|(p, _)| quasi_newton(&p))
            .collect();
        scored.extend(refined);
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    let best = scored.swap_remove(0);
    let improve = |(p, s): (Vec<f64>, f64)| match search.refine {
        true => quasi_newton(&p).unwrap_or((p, s)),
        false => (p, s),
    };
    over_lattice(best, domain, screen, &improve)
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
        if pinnbo_ad::interrupt::requested() {
            break;
        }
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

    /// Over a continuous coordinate, an integer one (1..6) and a categorical one (five levels
    /// whose values are in no order), from four candidates: both searches end at the best
    /// level and integer, the continuous optimum between them, every discrete coordinate at
    /// its value's centre.
    #[test]
    fn a_search_over_levels_finds_the_best_level() {
        use crate::space::Kind;
        let domain =
            Domain::cube(3).with_kinds(vec![Kind::Continuous, Kind::Integers(6), Kind::Levels(5)]);
        let search = Search {
            candidates: 4,
            refine: true,
            region: Region::Global,
        };
        let level_value = [0.1, 0.9, 0.2, 1.5, 0.3];
        let value = |u: &[f64]| {
            let level = (u[2] * 5.0).floor() as usize;
            let n = (u[1] * 6.0).floor();
            level_value[level] - (n - 4.0).powi(2) - 3.0 * (u[0] - 0.37).powi(2)
        };
        let score = |u: &[f64]| Some((value(u), vec![-6.0 * (u[0] - 0.37), 0.0, 0.0]));
        let screen =
            |points: &[Vec<f64>]| -> Vec<f64> { points.iter().map(|p| value(p)).collect() };
        let expected = [0.37, 4.5 / 6.0, 3.5 / 5.0];
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (smooth, _) = maximize_smooth(&score, &screen, &domain, search, &mut rng);
        let flat = |flat: &[f64]| flat.chunks(3).map(value).collect::<Vec<f64>>();
        let (batch, _) = maximize_batch(&flat, None, &domain, search, &mut rng);
        for best in [smooth, batch] {
            assert_eq!(best[1..], expected[1..], "{best:?}");
            assert!((best[0] - expected[0]).abs() < 1e-4, "{best:?}");
        }
    }

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
