//! What a run ends with: `summary.json` and `history.csv`, and the pictures (the convergence,
//! the evaluations over the truth, the surrogate; with two objectives the Pareto front).

use crate::plot::{self, HeatMap, Line, Scale};
use pinnbo_core::oracle;
use pinnbo_core::run::Run;
use pinnbo_core::run::{front, outputs};
use pinnbo_dsl::Problem;
use std::path::{Path, PathBuf};

/// What [`write_outputs`] drew, and why any picture was not drawn.
#[derive(Debug, Default)]
pub struct Written {
    pub pictures: Vec<PathBuf>,
    /// One line per picture that could not be drawn, for the caller to show.
    pub warnings: Vec<String>,
}

/// The summary and the history (an error when they cannot be written), then each picture:
/// one that cannot be drawn (a model that fails on the data, say) is a warning, and the
/// others are still drawn.
pub fn write_outputs(run: &mut Run) -> Result<Written, String> {
    let field = run.write_final_outputs()?;
    let drawn = [
        draw_field(run, field.as_ref()),
        draw_evaluations(run),
        draw_surrogate(run).map_err(|e| format!("surrogate.png not drawn: {e}")),
        draw_convergence(run),
        draw_front(run),
    ];
    let mut written = Written::default();
    for result in drawn {
        match result {
            Ok(picture) => written.pictures.extend(picture),
            Err(e) => written.warnings.push(e),
        }
    }
    Ok(written)
}

/// What a drawing function returns: the picture's path, None where there is nothing to
/// draw for this problem or method.
type Drawn = Result<Option<PathBuf>, String>;

/// `path` once `drawing` has written it.
fn drawn<E: ToString>(path: PathBuf, drawing: Result<(), E>) -> Drawn {
    drawing.map_err(|e| e.to_string()).map(|()| Some(path))
}

/// A design problem's field at the best design, from the method's model: its posterior mean
/// ± 2σ along one coordinate with the sensors' values there, or its mean over two.
fn draw_field(run: &Run, field: Option<&pinnbo_core::strategies::FieldReport>) -> Drawn {
    let Some(f) = field else {
        return Ok(None);
    };
    let p = run.problem();
    let best = run.summary().best;
    let observed = (best.as_ref())
        .and_then(|b| run.records().get(b.index))
        .and_then(|r| r.observed.clone());
    let path = run.dir().join("field.png");
    let title = format!(
        "{}: {} at the best design ({})",
        p.name,
        f.field,
        run.config().method
    );
    match f.coords.as_slice() {
        [(name, lo, hi)] => {
            let curve: Vec<(f64, f64)> = f.grid.iter().map(|(x, m, _)| (x[0], *m)).collect();
            let band: Vec<(f64, f64, f64)> = (f.grid.iter())
                .map(|(x, m, s)| (x[0], m - 2.0 * s, m + 2.0 * s))
                .collect();
            let samples: Vec<(f64, f64)> = (f.sensors.iter())
                .filter_map(|s| {
                    let (k, place) = s.sensor.as_ref()?;
                    Some((place[0], *observed.as_ref()?.sensors.get(*k)?))
                })
                .collect();
            let drawing = plot::line(
                &path,
                &Line {
                    title: &title,
                    x: Scale {
                        label: name,
                        lo: *lo,
                        hi: *hi,
                    },
                    y_label: &f.field,
                    points: &curve,
                    marks: &[],
                    samples: &samples,
                    band: &band,
                    level: None,
                },
            );
            drawn(path, drawing)
        }
        [(xname, xlo, xhi), (yname, ylo, yhi)] => {
            let n = (f.grid.len() as f64).sqrt().round() as usize;
            let node = |v: f64, lo: f64, hi: f64| {
                (((v - lo) / (hi - lo)) * (n - 1) as f64)
                    .round()
                    .clamp(0.0, (n - 1) as f64) as usize
            };
            // The grid runs over the second coordinate fastest within each of the first's.
            let value = |x: f64, y: f64| f.grid[node(x, *xlo, *xhi) * n + node(y, *ylo, *yhi)].1;
            let samples: Vec<(f64, f64)> = (f.sensors.iter())
                .filter_map(|s| Some((s.sensor.as_ref()?.1[0], s.sensor.as_ref()?.1[1])))
                .collect();
            let drawing = plot::heat_map(
                &path,
                &HeatMap {
                    title: &title,
                    x: Scale {
                        label: xname,
                        lo: *xlo,
                        hi: *xhi,
                    },
                    y: Scale {
                        label: yname,
                        lo: *ylo,
                        hi: *yhi,
                    },
                    value_label: &f.field,
                    value: &value,
                    resolution: (n, n),
                    marks: &[],
                    samples: &samples,
                },
            );
            drawn(path, drawing)
        }
        _ => Ok(None),
    }
}

/// The best feasible objective so far at each evaluation (with several objectives, the
/// hypervolume so far), as `convergence.png`.
fn draw_convergence(run: &Run) -> Drawn {
    let dir = run.dir();
    let several = run.problem().is_multi_objective();
    let best = match several {
        true => front::hypervolume_so_far(run.problem(), run.records()),
        false => outputs::best_so_far(run.problem(), run.records()),
    };
    let known: Vec<(f64, f64)> = best
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.map(|v| ((i + 1) as f64, v)))
        .collect();
    if known.is_empty() {
        return Ok(None);
    }
    // A step line: the best so far holds until the evaluation that improves it.
    let mut points = Vec::with_capacity(2 * known.len());
    for pair in known.windows(2) {
        points.extend([pair[0], (pair[1].0, pair[0].1)]);
    }
    points.extend(known.last());
    let title = format!(
        "{}: {} (seed {})",
        run.problem().name,
        run.config().method,
        run.config().seed
    );
    let path = dir.join("convergence.png");
    let drawing = plot::line(
        &path,
        &Line {
            title: &title,
            x: Scale {
                label: "evaluation",
                lo: 1.0,
                hi: run.config().budget.max(2) as f64,
            },
            y_label: match (several, noise_added(run)) {
                (true, _) => "hypervolume of the feasible evaluations so far",
                (false, true) => "best feasible objective so far (noise-free)",
                (false, false) => "best feasible objective so far",
            },
            points: &points,
            marks: &[],
            samples: &[],
            band: &[],
            level: run.problem().optimum.map(|v| ("known optimum", v)),
        },
    );
    drawn(path, drawing)
}

/// With two objectives, every feasible evaluation and the Pareto front through the
/// non-dominated ones (a step line, each point dominating the region above and right of it
/// as minimized), as `pareto.png`, in the file's own values.
fn draw_front(run: &Run) -> Drawn {
    let p = run.problem();
    let Some(front) = front::front(p, run.records()) else {
        return Ok(None);
    };
    let names = p.objective_names();
    if names.len() != 2 {
        return Ok(None);
    }
    let pair = |m: &serde_json::Map<String, serde_json::Value>| {
        let v = |k: usize| m.get(&names[k]).and_then(serde_json::Value::as_f64);
        Some((v(0)?, v(1)?))
    };
    let samples: Vec<(f64, f64)> = (run.records().iter())
        .filter_map(|r| r.truth().filter(|e| e.is_feasible()))
        .map(|e| (e.objectives[0], e.objectives[1]))
        .collect();
    if samples.is_empty() {
        return Ok(None);
    }
    let mut on_front: Vec<(f64, f64)> = front
        .points
        .iter()
        .filter_map(|q| pair(&q.objectives))
        .collect();
    on_front.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Between two points of the front the step holds the first's second value when that
    // objective is minimized (the region dominated lies above it), the next's otherwise.
    let second_minimized = p.other_objectives[0].sense == pinnbo_dsl::ir::Sense::Minimize;
    let first_minimized = p.objective.sense == pinnbo_dsl::ir::Sense::Minimize;
    let mut points = Vec::with_capacity(2 * on_front.len());
    for w in on_front.windows(2) {
        let held = match first_minimized == second_minimized {
            true => w[0].1,
            false => w[1].1,
        };
        points.extend([w[0], (w[1].0, held)]);
    }
    points.extend(on_front.last());
    let (lo, hi) = (samples.iter().map(|s| s.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let pad = 0.05 * (hi - lo).max(1e-12);
    let title = format!(
        "{}: Pareto front ({}, seed {})",
        p.name,
        run.config().method,
        run.config().seed
    );
    let path = run.dir().join("pareto.png");
    let drawing = plot::line(
        &path,
        &Line {
            title: &title,
            x: Scale {
                label: &names[0],
                lo: lo - pad,
                hi: hi + pad,
            },
            y_label: &names[1],
            points: &points,
            marks: &[],
            samples: &samples,
            band: &[],
            level: None,
        },
    );
    drawn(path, drawing)
}

/// For 1-D and 2-D problems with a closed-form or FDM oracle: the evaluated points over the
/// true objective (the reference field's, for FDM), as `evaluations.png`. Not for a design
/// problem simulated by FDM, where every point of the picture would be a solve.
fn draw_evaluations(run: &mut Run) -> Drawn {
    let p = run.problem().clone();
    let measured = match p.oracle {
        pinnbo_dsl::ir::Oracle::Command(_) | pinnbo_dsl::ir::Oracle::External => true,
        pinnbo_dsl::ir::Oracle::Fdm(_) => !p.field_coords.is_empty(),
        pinnbo_dsl::ir::Oracle::ClosedForm => false,
    };
    // A picture over a grid reads every variable as continuous.
    let discrete = p.coords.iter().any(|c| c.integer);
    if !(1..=2).contains(&p.dim()) || measured || discrete {
        return Ok(None);
    }
    let path = run.dir().join("evaluations.png");
    let title = format!("{}: evaluations ({})", p.name, run.config().method);
    let evaluated: Vec<Vec<f64>> = run
        .records()
        .iter()
        .filter(|r| r.observed.is_some())
        .map(|r| r.x.clone())
        .collect();
    // The run's own oracle (closed form or the already solved field): nothing is re-solved.
    let oracle = std::cell::RefCell::new(run.oracle_mut());
    let truth = |x: &[f64]| {
        oracle
            .borrow_mut()
            .evaluate(x)
            .map_or(f64::NAN, |e| e.objective())
    };
    let samples: Vec<(Vec<f64>, f64)> = evaluated.iter().map(|x| (x.clone(), truth(x))).collect();
    let drawing = picture(&path, &title, &p, &truth, &samples);
    drawn(path, drawing)
}

/// For 1-D and 2-D problems, the evaluated points over the method's final surrogate mean, as
/// `surrogate.png` (methods without a surrogate draw nothing).
fn draw_surrogate(run: &mut Run) -> Drawn {
    let p = run.problem().clone();
    let dim = p.dim();
    if !(1..=2).contains(&dim) || p.coords.iter().any(|c| c.integer) {
        return Ok(None);
    }
    let steps = if dim == 1 { 400 } else { 60 };
    let axis: Vec<f64> = (0..=steps).map(|i| i as f64 / steps as f64).collect();
    let grid: Vec<Vec<f64>> = if dim == 1 {
        axis.iter().map(|u| vec![*u]).collect()
    } else {
        axis.iter()
            .flat_map(|v| axis.iter().map(move |u| vec![*u, *v]))
            .collect()
    };
    if dim == 1 {
        if let Some(interval) = run.surrogate_interval(&grid).map_err(|e| e.to_string())? {
            return draw_interval(run, &grid, &interval);
        }
    }
    let Some(mean) = run.surrogate_mean(&grid).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    // Back to the file's sense (`maximize` is negated inside).
    let mean: Vec<f64> = mean.iter().map(|m| oracle::minimized(&p, *m)).collect();
    let space = pinnbo_core::space::Space::of(&p);
    // The nearest grid node's prediction (the grid is the unit cube's).
    let node = |x: &[f64], i: usize| {
        (space.to_unit(x)[i] * steps as f64)
            .round()
            .clamp(0.0, steps as f64) as usize
    };
    let value = |x: &[f64]| {
        let row = if dim == 2 { node(x, 1) } else { 0 };
        mean[row * (steps + 1) + node(x, 0)]
    };
    let samples: Vec<(Vec<f64>, f64)> = run
        .records()
        .iter()
        .filter_map(|r| r.observed.as_ref().map(|e| (r.x.clone(), e.objective())))
        .collect();
    let path = run.dir().join("surrogate.png");
    let title = format!("{}: surrogate mean ({})", p.name, run.config().method);
    let drawing = picture(&path, &title, &p, &value, &samples);
    drawn(path, drawing)
}

/// A 1-D problem's surrogate as `surrogate.png`: its mean with the band of about 95% about
/// it (mean ± 2 standard deviations, mapped through the method's warp where it has one), the
/// evaluated points, and the best feasible one marked.
fn draw_interval(run: &Run, grid: &[Vec<f64>], interval: &[(f64, f64, f64)]) -> Drawn {
    let p = run.problem();
    let space = pinnbo_core::space::Space::of(p);
    // Back to the file's sense (`maximize` is negated inside, which swaps the ends).
    let shown = |v: f64| oracle::minimized(p, v);
    let x = |u: &[f64]| space.to_box(u)[0];
    let curve: Vec<(f64, f64)> = (grid.iter().zip(interval))
        .map(|(u, (m, _, _))| (x(u), shown(*m)))
        .collect();
    let band: Vec<(f64, f64, f64)> = (grid.iter().zip(interval))
        .map(|(u, (_, lo, hi))| {
            let (a, b) = (shown(*lo), shown(*hi));
            (x(u), a.min(b), a.max(b))
        })
        .collect();
    let samples: Vec<(f64, f64)> = (run.records().iter())
        .filter_map(|r| r.observed.as_ref().map(|e| (r.x[0], e.objective())))
        .collect();
    // With added noise the dots are what was measured and the best is by noise-free values.
    let label = match noise_added(run) {
        true => "best (noise-free)",
        false => "best",
    };
    let best: Vec<(&str, f64, f64)> = (run.summary().best)
        .map(|b| (label, b.x[0], b.objective))
        .into_iter()
        .collect();
    let title = format!("{}: surrogate mean ± 2σ ({})", p.name, run.config().method);
    let path = run.dir().join("surrogate.png");
    let drawing = plot::line(
        &path,
        &Line {
            title: &title,
            x: Scale {
                label: &p.coords[0].name,
                lo: p.coords[0].lo,
                hi: p.coords[0].hi,
            },
            y_label: "objective",
            points: &curve,
            marks: &best,
            samples: &samples,
            band: &band,
            level: None,
        },
    );
    drawn(path, drawing)
}

/// `value` over a 1-D or 2-D problem's box (a curve or a heat map) with the evaluated points
/// (in 1-D at the heights given).
fn picture(
    path: &Path,
    title: &str,
    p: &Problem,
    value: &dyn Fn(&[f64]) -> f64,
    evaluated: &[(Vec<f64>, f64)],
) -> Result<(), String> {
    let scale = |i: usize| Scale {
        label: &p.coords[i].name,
        lo: p.coords[i].lo,
        hi: p.coords[i].hi,
    };
    if p.dim() == 1 {
        let (lo, hi) = (p.coords[0].lo, p.coords[0].hi);
        let curve: Vec<(f64, f64)> = (0..=400)
            .map(|i| lo + (hi - lo) * i as f64 / 400.0)
            .map(|x| (x, value(&[x])))
            .collect();
        let samples: Vec<(f64, f64)> = evaluated.iter().map(|(x, v)| (x[0], *v)).collect();
        plot::line(
            path,
            &Line {
                title,
                x: scale(0),
                y_label: "objective",
                points: &curve,
                marks: &[],
                samples: &samples,
                band: &[],
                level: None,
            },
        )
    } else {
        let samples: Vec<(f64, f64)> = evaluated.iter().map(|(x, _)| (x[0], x[1])).collect();
        plot::heat_map(
            path,
            &HeatMap {
                title,
                x: scale(0),
                y: scale(1),
                value_label: "objective",
                value: &|x, y| value(&[x, y]),
                resolution: (120, 120),
                marks: &[],
                samples: &samples,
            },
        )
    }
    .map_err(|e| e.to_string())
}

/// Whether the run adds synthetic noise: its measured values are noisy, its best noise-free.
fn noise_added(run: &Run) -> bool {
    run.problem().noise.is_some_and(|n| n.added)
}
