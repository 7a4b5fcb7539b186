//! What the fit says of the params' uncertainty: the Laplace approximation at the optimum
//! (its flat directions and marginal stds), then each param's profile posterior where the
//! estimate is reported, and the directions in the params the data leave free.

use super::profile::{profile, Profile};
use crate::numerics::quasi_newton::Evaluate;
use faer::{Mat, Side};

/// Relative step of the Hessian's differences (of the box's width).
const HESSIAN_STEP: f64 = 1e-4;

/// An eigenvalue of the Hessian at most this share of its largest is a flat direction: the
/// central differences' own error is about the square of [`HESSIAN_STEP`] of the largest.
const FLAT: f64 = 1e-6;

/// What the fit says of the params' uncertainty (in their fitted coordinates).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamSpread {
    /// Each param's standard deviation under its profile posterior (the Laplace
    /// approximation's marginal one where no profile was read); infinite where the data do
    /// not determine it (a flat or concave direction at the optimum, a profile whose
    /// likelihood-ratio interval is the box, or, unprofiled, a marginal spread wider than
    /// the box's).
    pub std: Vec<f64>,
    /// The directions in the params the data do not determine, each param's component its
    /// relative change ([`ParamEquations::units`](super::ParamEquations::units)): what a
    /// report names ("only b/a is determined", [`moved`]); empty where the data determine
    /// every param.
    pub undetermined: Vec<Vec<f64>>,
    /// Each param's profile (None where none was read; empty until
    /// [`PdeGp::with_param_profiles`](super::PdeGp::with_param_profiles) reads them): a
    /// report reads a `log` param's std in its own units from it.
    pub profiles: Vec<Option<Profile>>,
    /// The bounds of every coordinate the fit searched (empty without a fit): the profiles
    /// are read within them.
    pub(super) fit_box: (Vec<f64>, Vec<f64>),
    /// Whether a direction flat (or concave) at the optimum moves each param: the data leave
    /// it free, and no profile is read, for a profile along such a direction ends where
    /// another param reaches its box's bound and would read that bound as data (`a u'' =
    /// −b` with b in [0.5, 5] "determines" a within [0.5, 5/3]).
    pub(super) flat: Vec<bool>,
}

impl ParamSpread {
    /// Nothing known of `params` params (no fit, or the gradient not readable at it).
    pub fn unknown(params: usize) -> ParamSpread {
        ParamSpread {
            std: vec![f64::INFINITY; params],
            undetermined: Vec::new(),
            profiles: Vec::new(),
            fit_box: Default::default(),
            flat: vec![true; params],
        }
    }
}

/// The Laplace approximation of the params (the last `params` coordinates of `theta`, in
/// their fitted coordinates): the Hessian of the negative log posterior over every free
/// coordinate (a hyperparameter held at a bound of its box, or fixed by a box of zero
/// width, is held), from central differences of its exact gradient (forward ones from
/// `at_optimum`, the gradient at `theta`, at a bound); each param's marginal variance is
/// the diagonal of its inverse. Central, not forward: a well-determined combination's
/// curvature can be 10⁴ times a hyperparameter's, and forward differences' error (about
/// the step's share of the largest curvature) would blur the small ones into flat ones. A
/// direction that is flat or concave and moves a param ([`moved`], in the relative changes
/// `units` gives) leaves that param undetermined, as does a marginal spread wider than its
/// box's uniform prior's (`width/√12`): the data then say no more than the box.
pub(super) fn laplace(
    gradient: impl Fn(&[f64]) -> Option<Vec<f64>>,
    (theta, at_optimum): (&[f64], &[f64]),
    (lo, hi): (&[f64], &[f64]),
    units: &[f64],
) -> ParamSpread {
    let params = units.len();
    let n = theta.len();
    let first_param = n - params;
    let relative = |d: &[f64]| -> Vec<f64> { d.iter().zip(units).map(|(d, u)| d / u).collect() };
    let width = |i: usize| hi[i] - lo[i];
    let at_bound =
        |i: usize| theta[i] - lo[i] < 1e-6 * width(i) || hi[i] - theta[i] < 1e-6 * width(i);
    let free: Vec<usize> = (0..n)
        .filter(|&i| width(i) > 0.0 && (i >= first_param || !at_bound(i)))
        .collect();
    let unknown = ParamSpread::unknown(params);
    let mut hessian = Mat::<f64>::zeros(free.len(), free.len());
    let at = |i: usize, by: f64| {
        let mut moved = theta.to_vec();
        moved[i] += by;
        gradient(&moved)
    };
    for (a, &i) in free.iter().enumerate() {
        let step = HESSIAN_STEP * width(i);
        // Central differences inside the box; at a bound, forward towards its inside.
        let (up, down, span) = if theta[i] - step >= lo[i] && theta[i] + step <= hi[i] {
            (at(i, step), at(i, -step), 2.0 * step)
        } else if hi[i] - theta[i] < step {
            (Some(at_optimum.to_vec()), at(i, -step), step)
        } else {
            (at(i, step), Some(at_optimum.to_vec()), step)
        };
        let (Some(up), Some(down)) = (up, down) else {
            return unknown;
        };
        for (b, &j) in free.iter().enumerate() {
            let slope = (up[j] - down[j]) / span;
            hessian[(a, b)] += 0.5 * slope;
            hessian[(b, a)] += 0.5 * slope;
        }
    }
    let Ok(eigen) = hessian.self_adjoint_eigen(Side::Lower) else {
        return unknown;
    };
    let (values, vectors) = (eigen.S().column_vector(), eigen.U());
    let largest = (0..free.len()).map(|e| values[e].abs()).fold(0.0, f64::max);
    // Each param's place among the free coordinates (every param is free).
    let place: Vec<usize> = (0..params)
        .map(|k| free.iter().position(|&i| i == first_param + k).unwrap_or(0))
        .collect();
    let mut variance = vec![0.0; params];
    let mut undetermined: Vec<Vec<f64>> = Vec::new();
    for e in 0..free.len() {
        let direction: Vec<f64> = place.iter().map(|&a| vectors[(a, e)]).collect();
        let share: f64 = direction.iter().map(|v| v * v).sum();
        if values[e] > FLAT * largest {
            for (v, d) in variance.iter_mut().zip(&direction) {
                *v += d * d / values[e];
            }
        } else if share > 1e-2 {
            // Flat or concave where the params move: those moving most are undetermined.
            undetermined.push(relative(&direction));
        }
    }
    let mut undetermined = span(undetermined);
    let prior_std = |k: usize| width(first_param + k) / 12f64.sqrt();
    let mut std: Vec<f64> = (0..params).map(|k| variance[k].sqrt()).collect();
    for k in undetermined.iter().flat_map(|d| moved(d)) {
        std[k] = f64::INFINITY;
    }
    // No positive direction moves a param of variance 0: flat as well.
    let flat: Vec<bool> = std.iter().map(|s| !(s.is_finite() && *s > 0.0)).collect();
    // A spread as wide as the box's: the widest direction of the params' marginal
    // covariance (the column of the first such param) names what is undetermined.
    let too_wide: Vec<usize> = (0..params).filter(|&k| std[k] > prior_std(k)).collect();
    if let (true, Some(&k)) = (undetermined.is_empty(), too_wide.first()) {
        let covariance = |j: usize| {
            (0..free.len())
                .filter(|&e| values[e] > FLAT * largest)
                .map(|e| vectors[(place[j], e)] * vectors[(place[k], e)] / values[e])
                .sum::<f64>()
        };
        let column: Vec<f64> = (0..params).map(covariance).collect();
        undetermined.push(relative(&column));
    }
    for k in too_wide {
        std[k] = f64::INFINITY;
    }
    // A variance of 0 (no positive direction moves the param) is no measurement either.
    std.iter_mut()
        .filter(|s| **s <= 0.0)
        .for_each(|s| *s = f64::INFINITY);
    ParamSpread {
        std,
        undetermined,
        profiles: Vec::new(),
        fit_box: (lo.to_vec(), hi.to_vec()),
        flat,
    }
}

/// The params that moving along `direction` (their relative changes) moves: each by at
/// least a tenth of the one it moves most. The one criterion for which params a free direction
/// leaves undetermined and which a report names.
pub fn moved(direction: &[f64]) -> Vec<usize> {
    let most = direction.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    (0..direction.len())
        .filter(|&k| most > 0.0 && direction[k].abs() >= 0.1 * most)
        .collect()
}

/// `laplace`'s spread with each param no flat direction moves read from its profile
/// posterior ([`profile`]) around `theta` (the optimum of `f`, of value `value`): its std
/// the profile's, and undetermined where the profile's likelihood-ratio interval is the
/// whole box. The profile decides, also for a param whose spread at the optimum is wider
/// than the box: the likelihood may still fall within the box, further out than the
/// curvature at the optimum sees. Where no point of a profile factors, the Laplace
/// approximation's verdict stands.
pub(super) fn with_profiles(
    f: &Evaluate,
    (theta, value): (&[f64], f64),
    bounds: (&[f64], &[f64]),
    mut spread: ParamSpread,
) -> ParamSpread {
    let params = spread.std.len();
    let first_param = theta.len() - params;
    spread.profiles = vec![None; params];
    for k in (0..params).filter(|&k| !spread.flat[k]) {
        let Some(profile) = profile(f, (theta, value), bounds, first_param + k, spread.std[k])
        else {
            continue;
        };
        if profile.spans_the_box() {
            spread.std[k] = f64::INFINITY;
        } else {
            spread.std[k] = profile.moments(|p| p).1;
            spread.profiles[k] = Some(profile);
        }
    }
    // Every undetermined param is named: where no free direction moves it (its profile
    // spans the box, or its spread at the optimum was wider than the box while another
    // param's direction was flat), it is free alone.
    for k in 0..params {
        let named = (spread.undetermined.iter()).any(|d| moved(d).contains(&k));
        if !spread.std[k].is_finite() && !named {
            let alone = (0..params).map(|j| f64::from(j == k)).collect();
            spread.undetermined.push(alone);
        }
    }
    // What a report says the data leave free, in the undetermined params alone: with c read
    // from its profile, "only c/r is determined" becomes "the data do not determine r".
    let std = &spread.std;
    let free: Vec<Vec<f64>> = (spread.undetermined.iter())
        .map(|d| {
            (d.iter().zip(std))
                .map(|(v, s)| if s.is_finite() { 0.0 } else { *v })
                .collect()
        })
        .filter(|d: &Vec<f64>| norm(d) > 0.0)
        .collect();
    spread.undetermined = span(free);
    spread
}

/// An orthonormal basis of what `directions` span, each kept where more than a tenth of
/// it is new (nearly equal flat eigenvalues mix: two flat directions of the Hessian, one in
/// a hyperparameter, may each move the same combination of params).
fn span(mut directions: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    directions.sort_by(|a, b| norm(b).total_cmp(&norm(a)));
    let mut basis: Vec<Vec<f64>> = Vec::new();
    for mut d in directions {
        let before = norm(&d);
        for b in &basis {
            let along: f64 = d.iter().zip(b).map(|(x, y)| x * y).sum();
            d.iter_mut().zip(b).for_each(|(x, y)| *x -= along * y);
        }
        let after = norm(&d);
        if after > 0.1 * before {
            basis.push(d.iter().map(|x| x / after).collect());
        }
    }
    basis
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marginal standard deviation, over the free coordinates only: a coordinate fixed
    /// by a box of zero width (a known noise) and a hyperparameter at its bound are held,
    /// and the param's std is the inverse Hessian's diagonal, not its own curvature's.
    #[test]
    fn the_std_is_the_marginal_one_over_the_free_coordinates() {
        // Coordinates: a free hyperparameter, a fixed one, one at its bound, a param.
        let h = [
            [2.0, 0.3, 0.5, 1.5],
            [0.3, 1.0, 0.0, 0.2],
            [0.5, 0.0, 3.0, 0.7],
            [1.5, 0.2, 0.7, 2.0],
        ];
        let theta = [0.1, -2.0, -1.0, 0.4];
        let (lo, hi) = ([-5.0, -2.0, -1.0, -10.0], [5.0, -2.0, 3.0, 10.0]);
        let optimum = [0.2, -1.0, 0.5, 0.3];
        let gradient = |t: &[f64]| -> Option<Vec<f64>> {
            Some(
                (0..4)
                    .map(|i| (0..4).map(|j| h[i][j] * (t[j] - optimum[j])).sum())
                    .collect(),
            )
        };
        let at = gradient(&theta).unwrap();
        let spread = laplace(gradient, (&theta, &at), (&lo, &hi), &[1.0]);
        // Over coordinates 0 and 3: the inverse of [[2, 1.5], [1.5, 2]] at (3, 3).
        let marginal = (2.0f64 / (4.0 - 2.25)).sqrt();
        assert!(
            (spread.std[0] - marginal).abs() < 1e-6,
            "{spread:?} vs {marginal}"
        );
        assert!(spread.undetermined.is_empty());
        // A direction the data leave flat: the param and the hyperparameter trade off.
        let flat = |t: &[f64]| -> Option<Vec<f64>> {
            let s = (t[0] - optimum[0]) + (t[3] - optimum[3]);
            Some(vec![s, 0.0, 0.0, s])
        };
        let at = flat(&theta).unwrap();
        let spread = laplace(flat, (&theta, &at), (&lo, &hi), &[1.0]);
        assert_eq!(spread.std, vec![f64::INFINITY]);
        assert_eq!(spread.undetermined.len(), 1);
    }

    /// Which params a flat direction moves is weighed in relative changes, not in the
    /// params' units: p₁ = 0.05 is p₀ = 1 in other units, the data fix only p₀ − 20 p₁, and
    /// both are undetermined (in their own units p₁ moves a twentieth of p₀, which a
    /// criterion in those units would leave determined, named under p₀'s sentence).
    #[test]
    fn a_flat_direction_moves_params_by_their_relative_change() {
        let gradient = |t: &[f64]| -> Option<Vec<f64>> {
            let s = t[1] - 20.0 * t[2];
            Some(vec![200.0 * t[0], 2.0 * s, -40.0 * s])
        };
        let theta = [0.0, 1.0, 0.05];
        let (lo, hi) = ([-1.0, 0.1, 0.005], [1.0, 10.0, 0.5]);
        let at = gradient(&theta).unwrap();
        let spread = laplace(gradient, (&theta, &at), (&lo, &hi), &[1.0, 0.05]);
        assert_eq!(spread.std, vec![f64::INFINITY; 2], "{spread:?}");
        let [direction] = spread.undetermined.as_slice() else {
            panic!("one free direction: {spread:?}");
        };
        assert_eq!(moved(direction), vec![0, 1]);
        assert!(
            (direction[0] / direction[1] - 1.0).abs() < 1e-6,
            "{direction:?}"
        );
    }

    /// A param the curvature at the optimum puts wider than its box (a quartic's flat
    /// bottom) is read from its profile, which the box's ends bound: `exp(−p⁴)`'s spread;
    /// a flat direction's param (traded with a hyperparameter) stays undetermined.
    #[test]
    fn a_profile_decides_a_param_wider_than_its_box_at_the_optimum() {
        let quartic = |t: &[f64]| -> Option<(f64, Vec<f64>)> {
            let (h, p) = (t[0], t[1]);
            let value = 100.0 * h * h + 0.005 * p * p + p.powi(4);
            Some((value, vec![200.0 * h, 0.01 * p + 4.0 * p.powi(3)]))
        };
        let (lo, hi) = ([-1.0, -2.0], [1.0, 2.0]);
        let theta = [0.0, 0.0];
        let gradient = |t: &[f64]| quartic(t).map(|(_, g)| g);
        let spread = laplace(gradient, (&theta, &[0.0, 0.0]), (&lo, &hi), &[1.0]);
        assert_eq!(
            spread.std,
            vec![f64::INFINITY],
            "wider than the box: {spread:?}"
        );
        assert_eq!(spread.flat, vec![false]);
        let spread = with_profiles(&quartic, (&theta, 0.0), (&lo, &hi), spread);
        // Γ(3/4)/Γ(1/4): exp(−p⁴)'s variance, read on 9 points 0.5 apart.
        let exact = (1.2254167f64 / 3.6256099).sqrt();
        assert!(
            (spread.std[0] / exact - 1.0).abs() < 0.15,
            "{spread:?} vs {exact}"
        );
        assert!(spread.undetermined.is_empty(), "{spread:?}");
        let traded = |t: &[f64]| -> Option<(f64, Vec<f64>)> {
            let s = t[0] - t[1];
            Some((s * s, vec![2.0 * s, -2.0 * s]))
        };
        let gradient = |t: &[f64]| traded(t).map(|(_, g)| g);
        let spread = laplace(gradient, (&theta, &[0.0, 0.0]), (&lo, &hi), &[1.0]);
        let spread = with_profiles(&traded, (&theta, 0.0), (&lo, &hi), spread);
        assert_eq!((spread.std, spread.flat), (vec![f64::INFINITY], vec![true]));
    }

    /// A free direction that moved a param its profile then determines names the others
    /// alone: c and r traded off at the optimum, c bounded by its profile, r free.
    #[test]
    fn a_profiled_param_leaves_the_free_directions() {
        let f = |t: &[f64]| -> Option<(f64, Vec<f64>)> {
            let (h, c) = (t[0], t[1]);
            let value = 100.0 * h * h + 0.005 * c * c + c.powi(4);
            Some((value, vec![200.0 * h, 0.01 * c + 4.0 * c.powi(3), 0.0]))
        };
        let (lo, hi) = (vec![-1.0, -2.0, -2.0], vec![1.0, 2.0, 2.0]);
        // Both params undetermined at the optimum along `free`; `flat` as laplace says.
        let at_optimum = |free: Vec<f64>, flat: Vec<bool>| ParamSpread {
            std: vec![f64::INFINITY; 2],
            undetermined: vec![free],
            profiles: Vec::new(),
            fit_box: (lo.clone(), hi.clone()),
            flat,
        };
        let spread = at_optimum(vec![0.6, 0.8], vec![false, true]);
        let spread = with_profiles(&f, (&[0.0; 3], 0.0), (&lo, &hi), spread);
        assert!(
            spread.std[0].is_finite() && spread.std[1].is_infinite(),
            "{spread:?}"
        );
        assert_eq!(spread.undetermined, vec![vec![0.0, 1.0]]);
        // c free (flat), r wider than its box with a profile that spans it: r is named too,
        // not left under c's direction alone.
        let g = |t: &[f64]| -> Option<(f64, Vec<f64>)> {
            Some((100.0 * t[0] * t[0], vec![200.0 * t[0], 0.0, 0.0]))
        };
        let spread = at_optimum(vec![1.0, 0.0], vec![true, false]);
        let spread = with_profiles(&g, (&[0.0; 3], 0.0), (&lo, &hi), spread);
        assert_eq!(spread.std, vec![f64::INFINITY; 2]);
        assert_eq!(spread.undetermined, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
    }
}
