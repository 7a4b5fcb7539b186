//! The report `pinnbo solve` prints when a run ends: the best point, the Pareto set, the
//! convergence, the fitted constants, the time spent and where the outputs are.

use pinnbo_core::oracle;
use pinnbo_core::run::front;
use pinnbo_core::run::{ParamEstimate, PdeChecks, Run};
use pinnbo_core::Summary;
use pinnbo_dsl::Problem;

/// `v` rounded to `digits` significant digits, printed plainly (`2.51364`, `0.0779`, `1e-7`).
fn significant(v: f64, digits: usize) -> f64 {
    format!("{v:.*e}", digits.saturating_sub(1))
        .parse()
        .unwrap_or(v)
}

pub(crate) fn print_report(run: &Run, s: &Summary) {
    let p = run.problem();
    println!("problem    {} ({} variables)", p.name, p.dim());
    println!("method     {} (seed {})", s.method, s.seed);
    println!("evaluations {} ({} failed)", s.evaluations, s.failures);
    match &s.best {
        Some(b) => {
            let point: Vec<String> = p
                .coords
                .iter()
                .zip(&b.x)
                .map(|(c, v)| match c.integer {
                    true => format!("{} = {}", c.name, c.show(*v)),
                    false => format!("{} = {v:.6}", c.name),
                })
                .collect();
            match b.clean_objective {
                Some(clean) => println!(
                    "best       {clean} at evaluation {} (observed with noise: {})",
                    b.evaluation, b.objective
                ),
                None => println!("best       {} at evaluation {}", b.objective, b.evaluation),
            }
            println!("at         {}", point.join(", "));
            if let Some(opt) = p.optimum {
                let value = b.clean_objective.unwrap_or(b.objective);
                let regret = oracle::minimized(p, value) - oracle::minimized(p, opt);
                println!("known optimum {opt} (regret {regret:.3e})");
            }
        }
        None if s.pareto.is_some() => {}
        None => println!("best       no feasible evaluation"),
    }
    if let Some(front) = &s.pareto {
        print_front(p, front);
    }
    if let Some(at) = s.exhausted_at {
        println!(
            "progress   stopped before evaluation {at}: every point of the space was evaluated"
        );
    }
    if let Some(c) = s.convergence.as_ref().filter(|_| s.exhausted_at.is_none()) {
        let state = match (c.stopped_at, c.converged_since) {
            (Some(at), _) => format!("stopped before evaluation {at} (the method's `stop`)"),
            (None, Some(since)) => format!(
                "converged since evaluation {since}: no point's expected improvement has been \
                 above {} of the observations' spread, and the best has not moved",
                c.threshold
            ),
            (None, None) => "not converged".to_string(),
        };
        println!(
            "progress   {state}; last expected improvement {:.2e} of the observations' spread",
            c.expected_improvement_relative
        );
    }
    if let Some(c) = &s.pde_checks {
        println!("physics    {}", pde_line(c));
    }
    for (name, e) in &s.parameters {
        println!("param      {}", param_line(name, e));
    }
    println!(
        "time       {:.2} s proposing, {:.2} s evaluating",
        s.propose_seconds, s.evaluate_seconds
    );
    println!("output     {}", run.dir().display());
}

/// The Pareto set: its size and hypervolume, the reference point, and its first points
/// (objectives and variables in the file's order).
fn print_front(p: &Problem, front: &front::Front) {
    let objectives = p.objective_names();
    let variables: Vec<String> = p.coords.iter().map(|c| c.name.clone()).collect();
    let shown = |m: &serde_json::Map<String, serde_json::Value>, order: &[String]| {
        let each: Vec<String> = (order.iter())
            .filter_map(|k| Some((k, m.get(k)?)))
            .map(|(k, v)| match v.as_f64() {
                Some(x) if v.is_f64() => format!("{k} = {}", significant(x, 6)),
                _ => format!("{k} = {}", v.as_str().map_or(v.to_string(), str::to_string)),
            })
            .collect();
        each.join(", ")
    };
    println!(
        "pareto     {} non-dominated feasible evaluations, hypervolume {} (reference {})",
        front.points.len(),
        significant(front.hypervolume, 6),
        shown(&front.reference, &objectives)
    );
    if let Some(opt) = p.optimum {
        let regret = opt - front.hypervolume;
        println!("known optimum hypervolume {opt} (regret {regret:.3e})");
    }
    const SHOWN: usize = 10;
    for q in front.points.iter().take(SHOWN) {
        println!(
            "  {:>4}   {}   at {}",
            q.evaluation,
            shown(&q.objectives, &objectives),
            shown(&q.at, &variables)
        );
    }
    if front.points.len() > SHOWN {
        println!(
            "  ... and {} more (summary.json)",
            front.points.len() - SHOWN
        );
    }
}

/// How often the check kept the pde, what dropped it at the other steps, and whether the
/// last step searched with it.
fn pde_line(c: &PdeChecks) -> String {
    let v = &c.verdicts;
    if v.kept == v.steps {
        return format!("the pde kept at every step ({})", v.steps);
    }
    let last = match c.last_kept {
        true => "the last step searched with it",
        false => "the last step searched without it",
    };
    format!(
        "the pde kept at {} of {} steps (dropped by {}); {last} (docs/algorithms.md §8)",
        v.kept,
        v.steps,
        v.drops()
    )
}

/// One fitted param as the report shows it: its estimate and standard deviation (with the
/// value the model is fitted at where that lies a tenth of a std or more away), or why it
/// has none, and a warning where the fit ended on its box's bound.
fn param_line(name: &str, e: &ParamEstimate) -> String {
    let mut line = format!("{name} = {}", significant(e.value, 6));
    match (e.std, &e.undetermined) {
        (Some(s), _) => {
            line += &format!(" ± {}", significant(s, 3));
            if let Some(fitted) = e.fitted.filter(|f| (f - e.value).abs() >= 0.1 * s) {
                line += &format!(" (the model is fitted at {})", significant(fitted, 6));
            }
        }
        (None, Some(why)) => line += &format!(" (no standard deviation: {why})"),
        (None, None) => line += " (no standard deviation: the fit's curvature is not readable)",
    }
    if let Some(bound) = &e.at_bound {
        line += &format!(
            "\n           warning: {name} ended on the {bound} bound of its box; the data may \
             want a value outside it: widen the box"
        );
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use pinnbo_core::run::PdeVerdicts;

    /// The report shows where the model is fitted only where that is a tenth of a std or
    /// more from the estimate.
    #[test]
    fn a_param_line_names_the_fitted_value_where_it_differs() {
        let estimate = |fitted| ParamEstimate {
            value: 5.388,
            std: Some(1.24),
            fitted: Some(fitted),
            at_bound: None,
            undetermined: None,
        };
        assert_eq!(
            param_line("a", &estimate(5.672)),
            "a = 5.388 ± 1.24 (the model is fitted at 5.672)"
        );
        assert_eq!(param_line("a", &estimate(5.4)), "a = 5.388 ± 1.24");
    }

    #[test]
    fn the_physics_line_counts_the_steps_and_names_what_dropped_the_pde() {
        let checks = |kept, dropped_by: &[(&str, usize)], last_kept| PdeChecks {
            verdicts: PdeVerdicts {
                steps: 15,
                kept,
                dropped_by: (dropped_by.iter())
                    .map(|(why, n)| (why.to_string(), *n))
                    .collect(),
            },
            last_kept,
        };
        assert_eq!(
            pde_line(&checks(15, &[], true)),
            "the pde kept at every step (15)"
        );
        assert_eq!(
            pde_line(&checks(9, &[("leave-one-out", 5), ("targets", 1)], false)),
            "the pde kept at 9 of 15 steps (dropped by leave-one-out 5, targets 1); the last \
             step searched without it (docs/algorithms.md §8)"
        );
    }
}
