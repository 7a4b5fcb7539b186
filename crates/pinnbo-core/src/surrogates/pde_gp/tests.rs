use super::fit::{shortest_discrepancy_lengthscale, shortest_lengthscale, LENGTHSCALE};
use super::kernel::Term;
use super::likelihood::objective;
use super::*;
use crate::numerics::cholesky::Spd;
use crate::surrogates::gp::{Categorical, GpModel, GpSpec, Kernel, Mean};
use crate::surrogates::{dot, log_normal_density, KnownNoise, Starts};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

/// `f(x) = sin(2πx) + x/2` on [0, 1], which satisfies `f'' = −4π² sin(2πx)`; the pde leaves
/// the null space `a + bx` to the observations.
fn field(x: f64) -> f64 {
    (2.0 * std::f64::consts::PI * x).sin() + 0.5 * x
}

fn source(x: f64) -> f64 {
    -4.0 * std::f64::consts::PI.powi(2) * (2.0 * std::f64::consts::PI * x).sin()
}

fn second_derivative(z: f64, coefficient: f64) -> Functional {
    Functional {
        point: vec![z],
        terms: vec![Term {
            orders: vec![2],
            coefficient,
        }],
    }
}

/// The pde at `count` evenly spread points, equation j multiplied by `factor(j)`.
pub(super) fn residuals(count: usize, factor: impl Fn(usize) -> f64) -> Residuals {
    let points: Vec<f64> = (0..count)
        .map(|j| (j as f64 + 0.5) / count as f64)
        .collect();
    Residuals {
        functionals: points
            .iter()
            .enumerate()
            .map(|(j, z)| second_derivative(*z, factor(j)))
            .collect(),
        targets: points
            .iter()
            .enumerate()
            .map(|(j, z)| factor(j) * source(*z))
            .collect(),
        value_coefficients: vec![0.0; count],
    }
}

/// physics-gp's model with `scaling` and `mean` (the prior does not enter a fixed-hyper
/// posterior).
pub(super) fn model(scaling: Scaling, mean: Mean) -> PdeModel {
    PdeModel {
        prior: Prior::DimensionScaled,
        scaling,
        mean,
        discrepancy: false,
    }
}

pub(super) fn hyper(lengthscale: f64) -> PdeHyper {
    PdeHyper {
        gp: Hyper {
            log_lengthscales: vec![lengthscale.ln()],
            log_signal: 0.3,
            log_noise: 1e-4f64.ln(),
        },
        log_relative: 1e-6f64.ln(),
        discrepancy: None,
        params: Vec::new(),
    }
}

/// physics-gp's default model fitted to `x`, `values` and `r` from `restarts` cold starts.
fn fitted(x: &[Vec<f64>], values: &[f64], r: &Residuals, restarts: usize) -> PdeGp {
    let starts = Starts {
        previous: None,
        restarts,
    };
    let m = model(Scaling::Point, Mean::Constant);
    PdeGp::fit(m, x, values, r, starts, &KnownNoise::default()).unwrap()
}

pub(super) fn observations() -> (Vec<Vec<f64>>, Vec<f64>) {
    let x = vec![vec![0.1], vec![0.45], vec![0.7], vec![0.95]];
    let y = x.iter().map(|p| field(p[0])).collect();
    (x, y)
}

/// The covariance of two rows, each a point value `(false, at)` or the second difference
/// `(true, at)` (step 1e-3) of the plain squared exponential with length `l` and signal `s2`.
fn direct_covariance(l: f64, s2: f64) -> impl Fn(&(bool, f64), &(bool, f64)) -> f64 {
    let k = move |a: f64, b: f64| s2 * (-(a - b).powi(2) / (2.0 * l * l)).exp();
    let step = 1e-3;
    let stencil = move |second: bool, at: f64| -> Vec<(f64, f64)> {
        if second {
            let w = 1.0 / (step * step);
            vec![(at - step, w), (at, -2.0 * w), (at + step, w)]
        } else {
            vec![(at, 1.0)]
        }
    };
    move |a, b| {
        let (sa, sb) = (stencil(a.0, a.1), stencil(b.0, b.1));
        sa.iter()
            .flat_map(|(pa, wa)| sb.iter().map(move |(pb, wb)| (pa, wa, pb, wb)))
            .map(|(pa, wa, pb, wb)| wa * wb * k(*pa, *pb))
            .sum()
    }
}

/// The conditioning written out for [`hyper`]`(l)` with signal `s2`: every row, the dense
/// covariance with the noise on its diagonal, the standardized targets, and each row's
/// response to a constant prior mean.
struct Direct {
    rows: Vec<(bool, f64)>,
    a: Mat<f64>,
    y: Vec<f64>,
    ones: Vec<f64>,
}

fn direct(x: &[Vec<f64>], values: &[f64], r: &Residuals, l: f64, s2: f64) -> Direct {
    let cov = direct_covariance(l, s2);
    let rows: Vec<(bool, f64)> = x
        .iter()
        .map(|p| (false, p[0]))
        .chain(r.functionals.iter().map(|f| (true, f.point[0])))
        .collect();
    let n = rows.len();
    // Residual noise: ρ times the exact prior variance of f'' (3 s² / ℓ⁴).
    let residual_noise = 1e-6 * 3.0 * s2 / l.powi(4);
    let a = Mat::from_fn(n, n, |i, j| {
        let noise = match (i == j, i < x.len()) {
            (false, _) => 0.0,
            (true, true) => 1e-4,
            (true, false) => residual_noise,
        };
        cov(&rows[i], &rows[j]) + noise
    });
    let standardizer = Standardizer::fit(values);
    let y: Vec<f64> = values
        .iter()
        .map(|v| standardizer.forward(*v))
        .chain(r.targets.iter().map(|g| g / standardizer.std))
        .collect();
    let ones = (0..n)
        .map(|i| if i < x.len() { 1.0 } else { 0.0 })
        .collect();
    Direct { rows, a, y, ones }
}

/// The posterior mean from the model equals conditioning written out directly: covariances of
/// second derivatives by central differences of the plain squared exponential (step 1e-3), and
/// the Gaussian conditioning formula with dense solves; with the constant mean, its
/// generalized least-squares estimate (the pde has no value term, so its equations do not
/// move the constant).
#[test]
fn the_posterior_equals_direct_conditioning_of_a_discretized_case() {
    let (x, values) = observations();
    let r = residuals(6, |_| 1.0);
    let h = hyper(0.15);
    let average = PdeGp::with_hyper(
        model(Scaling::Point, Mean::Average),
        &x,
        (&values, &[]),
        &r,
        h.clone(),
    );
    let constant = PdeGp::with_hyper(
        model(Scaling::Point, Mean::Constant),
        &x,
        (&values, &[]),
        &r,
        h.clone(),
    );

    let (l, s2) = (0.15, 0.3f64.exp());
    let cov = direct_covariance(l, s2);
    let Direct { rows, a, y, ones } = direct(&x, &values, &r, l, s2);
    let spd = Spd::new(&a, "direct").unwrap();
    let gls = dot(&ones, &spd.solve(&y)) / dot(&ones, &spd.solve(&ones));
    for (model, c) in [(average.unwrap(), 0.0), (constant.unwrap(), gls)] {
        assert!((model.constant - c).abs() < 1e-4 * c.abs().max(1.0), "{c}");
        let centred: Vec<f64> = y.iter().zip(&ones).map(|(v, o)| v - c * o).collect();
        let alpha = spd.solve(&centred);
        for u in [0.0, 0.3, 0.62, 1.0] {
            let direct: f64 = c + rows
                .iter()
                .zip(&alpha)
                .map(|(row, al)| cov(&(false, u), row) * al)
                .sum::<f64>();
            let (mean, _) = model.predict_standardized(&[u]);
            assert!(
                (mean - direct).abs() < 1e-4 * direct.abs().max(1.0),
                "at {u}: {mean} vs {direct}"
            );
        }
    }
}

/// The leave-one-out score equals conditioning each observation on all the other rows
/// directly (dense solves of the written-out system), at the model's fitted constant.
#[test]
fn leave_one_out_equals_conditioning_on_the_other_rows() {
    let (x, values) = observations();
    let r = residuals(6, |_| 1.0);
    let model = PdeGp::with_hyper(
        model(Scaling::Point, Mean::Constant),
        &x,
        (&values, &[]),
        &r,
        hyper(0.15),
    )
    .unwrap();
    let Direct { a, y, ones, .. } = direct(&x, &values, &r, 0.15, 0.3f64.exp());
    let centred: Vec<f64> = y
        .iter()
        .zip(&ones)
        .map(|(v, o)| v - model.constant * o)
        .collect();
    let n = centred.len();
    let direct: f64 = (0..x.len())
        .map(|i| {
            let others: Vec<usize> = (0..n).filter(|j| *j != i).collect();
            let sub = Mat::from_fn(n - 1, n - 1, |p, q| a[(others[p], others[q])]);
            let spd = Spd::new(&sub, "direct").unwrap();
            let cross: Vec<f64> = others.iter().map(|j| a[(i, *j)]).collect();
            let rest: Vec<f64> = others.iter().map(|j| centred[*j]).collect();
            let error = centred[i] - dot(&cross, &spd.solve(&rest));
            let variance = a[(i, i)] - dot(&cross, &spd.solve(&cross));
            log_normal_density(error, variance)
        })
        .sum::<f64>()
        / x.len() as f64;
    let score = model.leave_one_out();
    assert!(
        (score - direct).abs() < 1e-3 * direct.abs().max(1.0),
        "{score} vs {direct}"
    );
}

/// The score physics-gp's `check` compares: the pde that the field satisfies predicts the
/// held-out observations better than no pde, and a wrong pde (its source negated) worse.
#[test]
fn leave_one_out_ranks_a_true_pde_above_none_and_a_wrong_one_below() {
    let (x, values) = observations();
    let score = |r: &Residuals| {
        let m = model(Scaling::Point, Mean::Constant);
        PdeGp::with_hyper(m, &x, (&values, &[]), r, hyper(0.15))
            .unwrap()
            .leave_one_out()
    };
    let right = residuals(6, |_| 1.0);
    let wrong = residuals(6, |_| 1.0).negated();
    let (right, none, wrong) = (score(&right), score(&Residuals::none()), score(&wrong));
    assert!(right > none && none > wrong, "{right} {none} {wrong}");
}

/// Fitted to four observations and the pde, the model's draws satisfy the pde at fresh points
/// (its residual's posterior mean and spread are small against the prior's), and its mean
/// reproduces the field over the whole domain, which a plain GP on the same four points
/// cannot.
#[test]
fn draws_satisfy_the_pde_and_the_field_is_recovered() {
    let (x, values) = observations();
    let r = residuals(40, |_| 1.0);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let model = fitted(&x, &values, &r, 2);
    let inv_l = model.inverse_lengthscales();
    let s2 = model.hyper.gp.log_signal.exp();
    for z in [0.013, 0.377, 0.5551, 0.871] {
        let operator = second_derivative(z, 1.0);
        let prior_sd = (s2 * covariance(&operator, &operator, &inv_l, None)).sqrt();
        let (mean, var) = model.predict_functional(&operator);
        let target = source(z) / model.standardizer.std;
        assert!(
            (mean - target).abs() < 1e-2 * prior_sd,
            "{z}: {mean} vs {target} (prior sd {prior_sd})"
        );
        assert!(
            var.sqrt() < 1e-2 * prior_sd,
            "{z}: sd {} vs prior {prior_sd}",
            var.sqrt()
        );
    }
    let grid: Vec<f64> = (0..=200).map(|i| i as f64 / 200.0).collect();
    let rms = |predict: &dyn Fn(f64) -> f64| {
        let sum: f64 = grid.iter().map(|u| (predict(*u) - field(*u)).powi(2)).sum();
        (sum / grid.len() as f64).sqrt()
    };
    let range = 2.2; // max − min of f over [0, 1], about
    let physics = rms(&|u| {
        model
            .standardizer
            .inverse(model.predict_standardized(&[u]).0)
    });
    let spec = GpSpec {
        kernel: Kernel::SquaredExponential,
        prior: Prior::DimensionScaled,
        mean: Mean::Constant,
        categorical: Categorical::default(),
    };
    let plain = GpModel::fit(
        &spec,
        &x,
        &values,
        Starts {
            previous: None,
            restarts: 2,
        },
        &KnownNoise::default(),
        &mut rng,
    )
    .unwrap();
    let blind = rms(&|u| plain.predict(&[u]).0);
    assert!(
        physics < 0.01 * range,
        "physics-informed RMS error {physics}"
    );
    assert!(
        blind > 0.1 * range,
        "the plain GP's RMS error {blind} (expected much larger)"
    );
}

/// The posterior's gradient in the point (the covariance with a derivative functional).
#[test]
fn prediction_gradients_match_differences() {
    let (x, values) = observations();
    let model = PdeGp::with_hyper(
        model(Scaling::Point, Mean::Constant),
        &x,
        (&values, &[]),
        &residuals(10, |_| 1.0),
        hyper(0.2),
    )
    .unwrap();
    for u in [0.13, 0.52, 0.9] {
        crate::surrogates::assert_predictions_agree(&model, &[u]);
    }
    let with_discrepancy = PdeGp::with_hyper(
        PdeModel {
            discrepancy: true,
            ..self::model(Scaling::Point, Mean::Constant)
        },
        &x,
        (&values, &[]),
        &residuals(10, |_| 1.0),
        PdeHyper {
            discrepancy: Some(Discrepancy {
                log_signal: -1.0,
                log_lengthscale: 0.3f64.ln(),
            }),
            ..hyper(0.2)
        },
    )
    .unwrap();
    for u in [0.13, 0.52, 0.9] {
        crate::surrogates::assert_predictions_agree(&with_discrepancy, &[u]);
    }
}

/// A model fitted in warped coordinates and asked at unit points: its batch, mean and
/// gradient agree (the gradient by the chain rule, against differences in the unit point).
#[test]
fn warped_predictions_agree_with_their_gradients() {
    use super::warp::{InputWarp, Warped};
    let (x, values) = observations();
    let warp = InputWarp { strength: 0.75 };
    let r = residuals(10, |_| 1.0);
    let gp = PdeGp::with_hyper(
        model(Scaling::Point, Mean::Constant),
        &warp.points(&x),
        (&values, &[]),
        &warp.residuals(&r),
        hyper(0.2),
    )
    .unwrap();
    let warped = Warped {
        inner: &gp,
        warp: Some(warp),
    };
    for u in [0.03, 0.13, 0.52, 0.9] {
        crate::surrogates::assert_predictions_agree(&warped, &[u]);
        let at_z = gp.predict_standardized(&warp.point(&[u]));
        assert_eq!(warped.predict_standardized(&[u]), at_z);
    }
}

/// Multiplying each residual equation by its own factor (as a coefficient's pole does) leaves
/// the posterior unchanged under per-point scaling; on a pde with constant coefficients, one
/// global scale gives the same posterior.
#[test]
fn per_point_scaling_leaves_the_posterior_unchanged() {
    let (x, values) = observations();
    let plain = residuals(12, |_| 1.0);
    let scaled = residuals(12, |j| [1e-3, 7.0, -2.0, 1e4][j % 4]);
    let h = hyper(0.2);
    let reference = PdeGp::with_hyper(
        model(Scaling::Point, Mean::Constant),
        &x,
        (&values, &[]),
        &plain,
        h.clone(),
    )
    .unwrap();
    let rescaled = PdeGp::with_hyper(
        model(Scaling::Point, Mean::Constant),
        &x,
        (&values, &[]),
        &scaled,
        h.clone(),
    )
    .unwrap();
    let global = PdeGp::with_hyper(
        model(Scaling::Global, Mean::Constant),
        &x,
        (&values, &[]),
        &plain,
        h,
    )
    .unwrap();
    for u in [0.05, 0.33, 0.5, 0.81] {
        let (m, v) = reference.predict_standardized(&[u]);
        for other in [&rescaled, &global] {
            let (m2, v2) = other.predict_standardized(&[u]);
            assert!((m - m2).abs() < 1e-7 * m.abs().max(1.0), "{u}: {m} vs {m2}");
            assert!((v - v2).abs() < 1e-7 * v.max(1e-6), "{u}: {v} vs {v2}");
        }
    }
}

/// The analytic gradient of the fit's objective against central differences, with the prior
/// and both scalings, on a 2-D pde with variable coefficients (the rotational symmetry
/// `x ∂_y f − y ∂_x f = 0`), without and with observations' own noise.
#[test]
fn the_fit_gradient_matches_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let x: Vec<Vec<f64>> = (0..6).map(|_| vec![rng.random(), rng.random()]).collect();
    let values: Vec<f64> = x
        .iter()
        .map(|p| (3.0 * (p[0] * p[0] + p[1] * p[1])).cos())
        .collect();
    let z: Vec<Vec<f64>> = (0..8).map(|_| vec![rng.random(), rng.random()]).collect();
    // With and without a value term `v f` (which makes the pde move a constant mean too).
    let pde = |v: f64| Residuals {
        functionals: z
            .iter()
            .map(|p| Functional {
                point: p.clone(),
                terms: vec![
                    Term {
                        orders: vec![0, 1],
                        coefficient: p[0],
                    },
                    Term {
                        orders: vec![1, 0],
                        coefficient: -p[1],
                    },
                    Term {
                        orders: vec![0, 0],
                        coefficient: v,
                    },
                ],
            })
            .collect(),
        targets: vec![0.3; z.len()],
        value_coefficients: vec![v; z.len()],
    };
    let cases = [Scaling::Point, Scaling::Global]
        .into_iter()
        .flat_map(|s| [Mean::Constant, Mean::Average].map(|m| model(s, m)))
        .flat_map(|m| {
            [false, true].map(|delta| PdeModel {
                discrepancy: delta,
                ..m
            })
        })
        .flat_map(|m| [0.0, 0.8].map(|v| (m, v)));
    for (model, v) in cases {
        // With a discrepancy, its log signal and log length scale follow.
        let theta: Vec<f64> = [-1.2, -0.7, 0.4, -5.0, -9.0]
            .into_iter()
            .chain(
                model
                    .discrepancy
                    .then_some([-2.0, -1.1])
                    .into_iter()
                    .flatten(),
            )
            .collect();
        // Without told standard errors, and with every other observation's own noise.
        let told: Vec<Option<f64>> = (0..6).map(|i| (i % 2 == 0).then_some(0.1)).collect();
        for sems in [Vec::new(), told] {
            let rows = Rows::new(&x, &values, &pde(v)).unwrap().with_sems(&sems);
            let f = |t: &[f64]| objective(&rows, &[], model, t).unwrap();
            let (_, g) = f(&theta);
            let eps = 1e-6;
            for i in 0..theta.len() {
                let at = |s: f64| {
                    let mut t = theta.clone();
                    t[i] += s;
                    f(&t).0
                };
                let fd = (at(eps) - at(-eps)) / (2.0 * eps);
                assert!(
                    (fd - g[i]).abs() < 1e-5 * fd.abs().max(1.0),
                    "{model:?} {v} {sems:?} {i}: {} vs {fd}",
                    g[i]
                );
            }
        }
    }
}

/// Observations rougher than the pde allows pull the length scale down; the pde's model stops
/// at its residual points' spacing (below it the equations would no longer constrain the field
/// between them), while the model without them goes below it on the same data.
#[test]
fn the_length_scale_stays_at_least_the_residual_points_spacing() {
    let x: Vec<Vec<f64>> = (0..40).map(|i| vec![(i as f64 + 0.3) / 40.0]).collect();
    let values: Vec<f64> = x
        .iter()
        .map(|p| field(p[0]) + 0.5 * (70.0 * p[0]).sin())
        .collect();
    let fit = |r: &Residuals| fitted(&x, &values, r, 3).hyper.gp.log_lengthscales[0].exp();
    let spacing: f64 = 1.0 / 8.0;
    assert!((shortest_lengthscale(8, 1) - spacing.ln()).abs() < 1e-12);
    assert!((shortest_lengthscale(256, 2) - (1.0f64 / 16.0).ln()).abs() < 1e-12);
    assert_eq!(shortest_lengthscale(0, 3), LENGTHSCALE.0);
    let with_pde = fit(&residuals(8, |_| 1.0));
    let without = fit(&Residuals::none());
    assert!(
        with_pde >= spacing * (1.0 - 1e-9),
        "with the pde: {with_pde}"
    );
    assert!(without < 0.5 * spacing, "without the pde: {without}");
}

/// physics-gp's model with a discrepancy fitted to `values` at `x` and the pde at 20 points.
fn fitted_with_discrepancy(x: &[Vec<f64>], values: &[f64]) -> PdeGp {
    let starts = Starts {
        previous: None,
        restarts: 2,
    };
    let m = PdeModel {
        discrepancy: true,
        ..model(Scaling::Point, Mean::Constant)
    };
    PdeGp::fit(
        m,
        x,
        values,
        &residuals(20, |_| 1.0),
        starts,
        &KnownNoise::default(),
    )
    .unwrap()
}

/// On data from a field that satisfies the pde, the discrepancy carries nothing: below 1%
/// of the fitted signal at the observations.
#[test]
fn a_right_pde_leaves_the_discrepancy_at_nothing() {
    let x: Vec<Vec<f64>> = (0..8).map(|i| vec![(i as f64 + 0.5) / 8.0]).collect();
    let y: Vec<f64> = x.iter().map(|p| field(p[0])).collect();
    let gp = fitted_with_discrepancy(&x, &y);
    assert!(gp.discrepancy_share() < 0.01, "{}", gp.discrepancy_share());
}

/// On data the pde cannot produce (a bump it does not know), the discrepancy carries them:
/// its share is the bump's share of the observations' variance, and the prediction is as
/// good as a plain Gaussian process's, where the pde's model without a discrepancy is
/// misled.
#[test]
fn a_wrong_pde_hands_the_data_to_the_discrepancy() {
    let bump = |x: f64| field(x) + 1.5 * (-(x - 0.6).powi(2) / 0.004).exp();
    let x: Vec<Vec<f64>> = (0..14).map(|i| vec![(i as f64 + 0.5) / 14.0]).collect();
    let y: Vec<f64> = x.iter().map(|p| bump(p[0])).collect();
    let gp = fitted_with_discrepancy(&x, &y);
    let without = fitted(&x, &y, &residuals(20, |_| 1.0), 2);
    let spec = GpSpec {
        kernel: Kernel::Matern52,
        prior: Prior::DimensionScaled,
        mean: Mean::Constant,
        categorical: Categorical::default(),
    };
    let starts = Starts {
        previous: None,
        restarts: 3,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let plain = GpModel::fit(&spec, &x, &y, starts, &KnownNoise::default(), &mut rng).unwrap();
    let rms = |model: &dyn GpPosterior| {
        let total: f64 = (0..=200)
            .map(|i| {
                let u = i as f64 / 200.0;
                (model.predict(&[u]).0 - bump(u)).powi(2)
            })
            .sum();
        (total / 201.0).sqrt()
    };
    let (with_delta, pde_only, plain) = (rms(&gp), rms(&without), rms(&plain));
    eprintln!(
        "share {} rms {with_delta} {pde_only} {plain}",
        gp.discrepancy_share()
    );
    let real = share_of(&x, |u| bump(u) - field(u), field);
    let share = gp.discrepancy_share();
    assert!((share - real).abs() < 0.2 * real, "{share} against {real}");
    assert!(
        with_delta < 0.5 * pde_only,
        "{with_delta} against {pde_only}"
    );
    assert!(with_delta < 1.25 * plain, "{with_delta} against {plain}");
}

/// The variance over `x` of `carried` as a share of its own and `governed`'s.
fn share_of(x: &[Vec<f64>], carried: impl Fn(f64) -> f64, governed: impl Fn(f64) -> f64) -> f64 {
    let variance = |f: &dyn Fn(f64) -> f64| {
        let values: Vec<f64> = x.iter().map(|p| f(p[0])).collect();
        crate::numerics::moments::mean_and_deviation(&values)
            .1
            .powi(2)
    };
    let carried = variance(&carried);
    carried / (carried + variance(&governed))
}

/// `n` uniformly random points of [0, 1] and the field there plus `carried` and Gaussian
/// noise of std `sigma`, from `seed`.
fn noisy_sample(
    n: usize,
    sigma: f64,
    carried: impl Fn(f64) -> f64,
    seed: u64,
) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<Vec<f64>> = (0..n).map(|_| vec![rng.random::<f64>()]).collect();
    let y = (x.iter())
        .map(|p| field(p[0]) + carried(p[0]) + sigma * rng.sample::<f64, _>(StandardNormal))
        .collect();
    (x, y)
}

/// A discrepancy shorter than the observations' spacing would be uncorrelated between
/// them, as the noise is: its length scale stays at least the spacing `1/n` in 1-D.
#[test]
fn the_discrepancy_is_no_shorter_than_the_observations_spacing() {
    for (n, seed) in [(8, 0), (14, 1), (20, 2)] {
        let (x, y) = noisy_sample(n, 0.3, |_| 0.0, seed);
        let gp = fitted_with_discrepancy(&x, &y);
        let delta = gp.hyper.discrepancy.as_ref().unwrap();
        let spacing = 1.0 / n as f64;
        assert!(
            delta.log_lengthscale.exp() >= spacing * (1.0 - 1e-9),
            "{n}: {}",
            delta.log_lengthscale.exp()
        );
    }
    assert_eq!(
        shortest_discrepancy_lengthscale(1000, 1),
        (-4.6f64).max(-(1000f64).ln())
    );
    assert!((shortest_discrepancy_lengthscale(25, 2) - 0.2f64.ln()).abs() < 1e-12);
}

/// Noisy observations of a field the pde governs are noise, not discrepancy: the share
/// stays below the 1% that physics-gp trusts the pde under at most seeds. Measured over 10
/// seeds at 8, 14 and 20 observations with noise std 0.1 (a sixth of the field's): 3 of
/// 30 above 1% (23 with the discrepancy as short as the noise, before the spacing bound and
/// the share read from the posterior; `--example discrepancy_share`).
#[test]
fn a_right_pde_under_noise_leaves_the_discrepancy_at_nothing_mostly() {
    let above = [8, 14, 20]
        .into_iter()
        .flat_map(|n| (0..10).map(move |seed| (n, seed)))
        .filter(|&(n, seed)| {
            let (x, y) = noisy_sample(n, 0.1, |_| 0.0, seed);
            fitted_with_discrepancy(&x, &y).discrepancy_share() > 0.01
        })
        .count();
    assert!(above <= 8, "{above} of 30 above 1%");
}
