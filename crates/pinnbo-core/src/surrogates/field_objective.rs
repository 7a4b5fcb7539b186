//! A design problem's objective (or a constraint) as a number read from a model of its
//! field over coordinates × design (docs/dsl.md "Design problems"): at a design, each
//! functional of the objective is a linear map or a maximum of the field's joint posterior at
//! a few field points, so the objective's distribution follows from the field's.
//!
//! Point values, integrals and means are linear in the field: an objective affine in them is
//! exactly Gaussian. Maxima, minima and nonlinear expressions are read from joint posterior
//! samples of the field at those points, drawn from fixed normal draws (the same at every
//! design, so that the criterion is a smooth function of the design).

use crate::numerics::cholesky::Spd;
use crate::space::Space;
use crate::surrogates::GpPosterior;
use pinnbo_dsl::ir::{Expr, FieldId, Functional, Reduce};
use pinnbo_dsl::{Compiled, Problem};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

/// Quadrature nodes per coordinate of an integral or a mean read from the model.
const QUADRATURE: usize = 16;
/// Grid nodes per coordinate of a maximum or minimum read from samples (fewer per coordinate
/// with several, so that a reading has at most [`MOST_NODES`] points).
const SEARCH_GRID: usize = 33;
const MOST_NODES: usize = 289;
/// Joint posterior samples of a nonlinear reading.
pub const SAMPLES: usize = 256;

/// How one functional reads the field at a design: the field points (unit coordinates of
/// the field's coordinates, the design's filled in at each design) and how their values
/// combine.
#[derive(Clone, Debug)]
struct Reading {
    reduce: Reduce,
    /// Each node's field coordinates, as (argument position, unit value).
    nodes: Vec<Vec<(usize, f64)>>,
    /// Quadrature weights in the coordinates' own units (1 for a point or a search).
    weights: Vec<f64>,
}

impl Reading {
    /// Whether its value is a linear map of the field's values at its nodes.
    fn is_linear(&self) -> bool {
        matches!(self.reduce, Reduce::Point | Reduce::Integral | Reduce::Mean)
    }

    /// Its value from the field's values at its nodes.
    fn value(&self, field: &[f64]) -> f64 {
        match self.reduce {
            Reduce::Maximum => field.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Reduce::Minimum => field.iter().copied().fold(f64::INFINITY, f64::min),
            _ => field.iter().zip(&self.weights).map(|(f, w)| f * w).sum(),
        }
    }
}

/// The distribution of a design's objective under the field's posterior.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    Gaussian {
        mean: f64,
        sd: f64,
    },
    /// Equally weighted samples.
    Samples(Vec<f64>),
}

impl Distribution {
    pub fn mean(&self) -> f64 {
        match self {
            Distribution::Gaussian { mean, .. } => *mean,
            Distribution::Samples(s) => s.iter().sum::<f64>() / s.len().max(1) as f64,
        }
    }

    pub fn sd(&self) -> f64 {
        match self {
            Distribution::Gaussian { sd, .. } => *sd,
            Distribution::Samples(s) => {
                let m = self.mean();
                let n = s.len().max(2) as f64;
                (s.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
            }
        }
    }
}

/// An expression of functionals of one field (and of the design) read from a model of the
/// field.
#[derive(Clone, Debug)]
pub struct FieldObjective {
    pub field: FieldId,
    /// For each argument of the field, the design variable it is (None: a field coordinate).
    args: Vec<Option<usize>>,
    readings: Vec<Reading>,
    /// Each reading's nodes among all the readings' nodes, in order.
    spans: Vec<std::ops::Range<usize>>,
    /// The expression over the design (box) and then each functional's value.
    program: Compiled,
    /// Whether the expression is affine in the functionals' values.
    affine: bool,
    space: Space,
    /// Fixed standard normal draws, one row per sample, for the nodes of every reading.
    draws: Vec<Vec<f64>>,
}

impl FieldObjective {
    /// `expr` (an objective as minimized, or a constraint) of `problem` read from its field's
    /// functionals; None when it reads no functional, or functionals of several fields, or
    /// mentions a field at the current point.
    pub fn new(problem: &Problem, expr: &Expr, seed: u64) -> Option<FieldObjective> {
        let functionals = expr.functionals();
        let field = functionals.first()?.field;
        if functionals.iter().any(|f| f.field != field) || !expr.fields().is_empty() {
            return None;
        }
        let d = problem.dim();
        let args: Vec<Option<usize>> = (problem.fields[field].args.iter())
            .map(|&c| (!problem.is_field_coord(c)).then_some(c))
            .collect();
        let readings: Vec<Reading> = (functionals.iter()).map(|f| reading(problem, f)).collect();
        let replaced = expr.replace_functionals(&|f| {
            let k = functionals.iter().position(|g| g == f)?;
            Some(Expr::Coord(d + k))
        });
        let expanded = pinnbo_dsl::diff::expand(&replaced)?;
        let program = Compiled::new(&expanded, d + functionals.len()).ok()?;
        let affine = (0..functionals.len()).all(|j| {
            (0..functionals.len()).all(|k| {
                let second = pinnbo_dsl::diff::derivative(
                    &pinnbo_dsl::diff::derivative(&expanded, d + j),
                    d + k,
                );
                matches!(second, Expr::Const(v) if v == 0.0)
            })
        });
        let mut spans = Vec::new();
        for r in &readings {
            let start = spans.last().map_or(0, |s: &std::ops::Range<usize>| s.end);
            spans.push(start..start + r.nodes.len());
        }
        let nodes = spans.last().map_or(0, |s| s.end);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let draws = (0..SAMPLES)
            .map(|_| (0..nodes).map(|_| rng.sample(StandardNormal)).collect())
            .collect();
        Some(FieldObjective {
            field,
            args,
            readings,
            spans,
            program,
            affine,
            space: Space::of(problem),
            draws,
        })
    }

    /// The field's unit input at every node of every reading, at the design `unit`.
    pub fn points(&self, unit: &[f64]) -> Vec<Vec<f64>> {
        (self.readings.iter())
            .flat_map(|r| r.nodes.iter().map(|node| self.input(unit, node)))
            .collect()
    }

    /// The field's unit input of a sensor place (`place` gives each field coordinate's value,
    /// by argument position) at the design `unit`.
    pub fn input(&self, unit: &[f64], place: &[(usize, f64)]) -> Vec<f64> {
        let mut p: Vec<f64> = (self.args.iter())
            .map(|a| a.map_or(0.0, |j| unit[j]))
            .collect();
        for &(i, v) in place {
            p[i] = v;
        }
        p
    }

    /// The expression's distribution at the design `unit` under `model`, a posterior of the
    /// field over its unit inputs.
    pub fn distribution(&self, model: &dyn GpPosterior, unit: &[f64]) -> Distribution {
        self.distribution_with(model, unit, SAMPLES)
    }

    /// [`FieldObjective::distribution`] from the first `samples` of the fixed draws where it
    /// is sampled: a cheaper, coarser reading for screening many designs.
    pub fn distribution_with(
        &self,
        model: &dyn GpPosterior,
        unit: &[f64],
        samples: usize,
    ) -> Distribution {
        let x = self.space.to_box(unit);
        let points = self.points(unit);
        let (means, cov) = model.joint(&points);
        let s = model.standardizer();
        let mean: Vec<f64> = means.iter().map(|m| s.inverse(*m)).collect();
        let scale = s.std * s.std;
        let linear = self.readings.iter().all(Reading::is_linear);
        let evaluate = |values: &[f64]| {
            let mut input = x.clone();
            input.extend_from_slice(values);
            self.program.eval(&input)
        };
        let spans = &self.spans;
        if linear && self.affine {
            // Each functional is w·f over its nodes: the objective is c + Σ g_k w_k·f.
            let k = self.readings.len();
            let base = evaluate(&vec![0.0; k]);
            let mut weights = vec![0.0; points.len()];
            for (j, (r, span)) in self.readings.iter().zip(spans).enumerate() {
                let mut unit_j = vec![0.0; k];
                unit_j[j] = 1.0;
                let g = evaluate(&unit_j) - base;
                for (w, i) in r.weights.iter().zip(span.clone()) {
                    weights[i] += g * w;
                }
            }
            let m = base + weights.iter().zip(&mean).map(|(w, v)| w * v).sum::<f64>();
            let mut var = 0.0;
            for (i, wi) in weights.iter().enumerate() {
                for (j, wj) in weights.iter().enumerate() {
                    var += wi * wj * cov[(i, j)];
                }
            }
            return Distribution::Gaussian {
                mean: m,
                sd: (var * scale).max(0.0).sqrt(),
            };
        }
        let Ok(spd) = Spd::new(&cov, "the field's posterior covariance") else {
            return Distribution::Samples(vec![evaluate(&self.values(&mean, spans)); 1]);
        };
        let l = spd.lower_factor();
        let sd = scale.sqrt();
        let samples = (self.draws.iter().take(samples.max(1)))
            .map(|z| {
                let field: Vec<f64> = (0..points.len())
                    .map(|i| mean[i] + sd * (0..=i).map(|j| l[(i, j)] * z[j]).sum::<f64>())
                    .collect();
                evaluate(&self.values(&field, spans))
            })
            .collect();
        Distribution::Samples(samples)
    }

    /// Each reading's value from the field's values at every node.
    fn values(&self, field: &[f64], spans: &[std::ops::Range<usize>]) -> Vec<f64> {
        (self.readings.iter().zip(spans))
            .map(|(r, span)| r.value(&field[span.clone()]))
            .collect()
    }
}

/// How `f` reads the field: its nodes and weights.
fn reading(problem: &Problem, f: &Functional) -> Reading {
    let position = |c: usize| {
        (problem.fields[f.field].args.iter())
            .position(|a| *a == c)
            .expect("a functional's coordinates are its field's")
    };
    let unit = |c: usize, v: f64| {
        let coord = problem.coordinate(c);
        (v - coord.lo) / (coord.hi - coord.lo)
    };
    let fixed: Vec<(usize, f64)> =
        f.at.iter()
            .map(|&(c, v)| (position(c), unit(c, v)))
            .collect();
    // Each axis: (unit value, weight in the coordinate's units).
    let axes: Vec<(usize, Vec<(f64, f64)>)> = (f.over.iter())
        .map(|&c| {
            let coord = problem.coordinate(c);
            let width = coord.hi - coord.lo;
            let axis = match f.reduce {
                Reduce::Integral | Reduce::Mean => {
                    let n = per_axis(QUADRATURE, f.over.len());
                    // A mean's weights on the unit interval sum to one; an integral's to the
                    // coordinate's width.
                    let scale = if f.reduce == Reduce::Mean { 1.0 } else { width };
                    (gauss_legendre_unit(n).into_iter())
                        .map(|(t, w)| (t, w * scale))
                        .collect()
                }
                _ => {
                    let n = per_axis(SEARCH_GRID, f.over.len());
                    (0..n).map(|i| (i as f64 / (n - 1) as f64, 1.0)).collect()
                }
            };
            (position(c), axis)
        })
        .collect();
    let mut nodes = vec![fixed];
    let mut weights = vec![1.0];
    for (i, axis) in &axes {
        let mut next_nodes = Vec::new();
        let mut next_weights = Vec::new();
        for (node, w) in nodes.iter().zip(&weights) {
            for &(v, wv) in axis {
                let mut n = node.clone();
                n.push((*i, v));
                next_nodes.push(n);
                next_weights.push(w * wv);
            }
        }
        nodes = next_nodes;
        weights = next_weights;
    }
    Reading {
        reduce: f.reduce,
        nodes,
        weights,
    }
}

/// Nodes per axis with `axes` axes, at most `base`, their product at most [`MOST_NODES`].
fn per_axis(base: usize, axes: usize) -> usize {
    let mut n = base;
    while n > 2 && n.pow(axes as u32) > MOST_NODES {
        n -= 1;
    }
    n
}

/// The `n`-point Gauss–Legendre rule on `[0, 1]`: (node, weight).
fn gauss_legendre_unit(n: usize) -> Vec<(f64, f64)> {
    pinnbo_dsl::functional::gauss_legendre(n)
        .into_iter()
        .map(|(t, w)| (0.5 * (t + 1.0), 0.5 * w))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surrogates::gp::{Categorical, GpModel, GpSpec, Kernel, Mean, Prior};
    use crate::surrogates::{KnownNoise, Starts};
    use pinnbo_dsl::{compile, Source};

    /// A problem over `coord x in [0, 2]` and `var a in [1, 3]` whose objective is `objective`.
    fn problem(objective: &str) -> Problem {
        let text = format!(
            "var a in [1, 3]\ncoord x in [0, 2]\nfield T(x, a)\nminimize {objective}\noracle external\n"
        );
        compile(&Source::new("rod.pde", text.as_str()))
            .unwrap()
            .problem
    }

    /// A GP of `f(x, a)` fitted to exact values on a grid of the field's unit inputs.
    fn model(f: impl Fn(f64, f64) -> f64, nx: usize, na: usize) -> GpModel {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..nx {
            for j in 0..na {
                let (ux, ua) = (i as f64 / (nx - 1) as f64, j as f64 / (na - 1) as f64);
                x.push(vec![ux, ua]);
                y.push(f(2.0 * ux, 1.0 + 2.0 * ua));
            }
        }
        let spec = GpSpec {
            kernel: Kernel::SquaredExponential,
            prior: Prior::None,
            mean: Mean::Constant,
            categorical: Categorical::default(),
        };
        let starts = Starts {
            previous: None,
            restarts: 2,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        GpModel::fit(
            &spec,
            &x,
            &y,
            starts,
            &KnownNoise::level(Some(1e-6)),
            &mut rng,
        )
        .unwrap()
    }

    /// A point functional's posterior is the field's posterior at that place and design:
    /// conditioning the field there directly gives the same mean and standard deviation.
    #[test]
    fn a_point_functional_is_the_fields_posterior_at_its_place() {
        let gp = model(|x, a| (a * x).sin(), 5, 4);
        let p = problem("3 * T(0.5, a) - 1");
        let objective = FieldObjective::new(&p, &p.objective.expr, 0).unwrap();
        let design = [0.4];
        let (mean, sd) = gp.predict(&[0.25, 0.4]);
        match objective.distribution(&gp, &design) {
            Distribution::Gaussian { mean: m, sd: s } => {
                assert!((m - (3.0 * mean - 1.0)).abs() < 1e-12, "{m} {mean}");
                assert!((s - 3.0 * sd).abs() < 1e-12, "{s} {sd}");
            }
            other => panic!("a point value is Gaussian: {other:?}"),
        }
    }

    /// An integral's mean and variance are the integrals of the field's posterior mean and
    /// covariance, here against the trapezoid rule on a fine grid (2,001 nodes for the mean,
    /// 401 × 401 for the variance).
    #[test]
    fn an_integrals_posterior_is_the_quadrature_of_the_fields() {
        let gp = model(|x, a| (a * x).sin() + 0.3 * x, 9, 4);
        let p = problem("integral(T, x)");
        let objective = FieldObjective::new(&p, &p.objective.expr, 0).unwrap();
        let design = [0.7];
        let Distribution::Gaussian { mean, sd } = objective.distribution(&gp, &design) else {
            panic!("an integral is Gaussian");
        };
        let trapezoid = |n: usize| -> Vec<(f64, f64)> {
            (0..n)
                .map(|i| {
                    let w = if i == 0 || i == n - 1 { 0.5 } else { 1.0 };
                    (i as f64 / (n - 1) as f64, 2.0 * w / (n - 1) as f64)
                })
                .collect()
        };
        let fine: f64 = (trapezoid(2001).iter())
            .map(|(u, w)| w * gp.predict(&[*u, 0.7]).0)
            .sum();
        assert!(
            (mean - fine).abs() < 1e-6,
            "{mean} against {fine}, {:?}",
            gp.hyper
        );
        let nodes = trapezoid(401);
        let points: Vec<Vec<f64>> = nodes.iter().map(|(u, _)| vec![*u, 0.7]).collect();
        let (_, cov) = gp.joint(&points);
        let s2 = gp.standardizer().std.powi(2);
        let mut var = 0.0;
        for (i, (_, wi)) in nodes.iter().enumerate() {
            for (j, (_, wj)) in nodes.iter().enumerate() {
                var += wi * wj * cov[(i, j)] * s2;
            }
        }
        assert!(
            (sd - var.sqrt()).abs() < 1e-3 * var.sqrt().max(1e-9),
            "{sd} against {}",
            var.sqrt()
        );
    }

    /// A field known exactly along its coordinate (dense noise-free values): the samples of
    /// its maximum gather at the path's true maximum, sin's 1 at x = π/(2a), between the
    /// search grid's nodes.
    #[test]
    fn sampled_maxima_converge_to_the_paths_maximum() {
        let gp = model(|x, a| (a * x).sin(), 25, 5);
        let p = problem("-maximum(T, x)");
        let objective = FieldObjective::new(&p, &p.objective.expr, 3).unwrap();
        let design = [0.5]; // a = 2: the maximum 1 at x = π/4
        let Distribution::Samples(samples) = objective.distribution(&gp, &design) else {
            panic!("a maximum is sampled");
        };
        assert_eq!(samples.len(), SAMPLES);
        let d = Distribution::Samples(samples);
        assert!((-d.mean() - 1.0).abs() < 2e-3, "{}", -d.mean());
        assert!(d.sd() < 2e-3, "{}", d.sd());
        // A coarser fit (fewer values) is less sure of the same maximum.
        let coarse = model(|x, a| (a * x).sin(), 6, 5);
        let spread = objective.distribution(&coarse, &design).sd();
        assert!(spread > d.sd(), "{spread} against {}", d.sd());
    }
}
