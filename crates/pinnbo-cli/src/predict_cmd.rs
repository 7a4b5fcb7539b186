//! `pinnbo predict`: what a run's model says at points, without evaluating anything.

use crate::exit::Exit;
use pinnbo_core::run::{Prediction, Run};
use pinnbo_dsl::Style;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pinnbo predict beam-physics-gp-seed0 --at x=0.88\n  \
                        pinnbo predict lab --at t=40,c=0.5 --at t=60,c=0.2 --json"
)]
pub struct Options {
    /// The run folder.
    pub dir: PathBuf,
    /// A point by name, `x=0.3,y=1` (repeat for more).
    #[arg(long, required = true)]
    pub at: Vec<String>,
    /// Print the prediction as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(o: &Options, style: Style) -> Exit {
    let mut run = match crate::ask_tell_cmd::continue_run(&o.dir, None) {
        Ok(run) => run,
        Err(exit) => return exit,
    };
    let mut points = Vec::with_capacity(o.at.len());
    for at in &o.at {
        let parsed = match crate::formats::point(at) {
            Ok(parsed) => parsed,
            Err(e) => {
                eprint!("{}", e.render(style));
                return Exit::Usage;
            }
        };
        match crate::eval_cmd::assemble_point(run.problem(), &parsed) {
            Ok(x) => points.push(x),
            Err(msg) => {
                eprintln!("error: {msg}");
                return Exit::Usage;
            }
        }
    }
    let prediction = match run.predict(&points) {
        Ok(Some(p)) => p,
        Ok(None) => {
            eprintln!(
                "error: {} has no predictive standard deviation to report, or no evaluation \
                 succeeded yet",
                run.config().method
            );
            return Exit::Invalid;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let text = match o.json {
        true => json(&run, &o.at, &prediction).to_string() + "\n",
        false => table(&run, &o.at, &prediction),
    };
    print!("{text}");
    Exit::Success
}

/// `{"points": [{"at", "objective": {"mean", "std"}, "constraints": {..}}], "parameters"}`.
fn json(run: &Run, at: &[String], p: &Prediction) -> serde_json::Value {
    let names: Vec<&str> = run
        .problem()
        .constraints
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let points: Vec<serde_json::Value> = (at.iter().enumerate())
        .map(|(i, at)| {
            let constraints: Option<serde_json::Map<String, serde_json::Value>> =
                p.constraints.as_ref().map(|all| {
                    (names.iter().zip(all))
                        .map(|(n, (m, s))| (n.to_string(), moments(m[i], s[i])))
                        .collect()
                });
            serde_json::json!({
                "at": at,
                "objective": moments(p.mean[i], p.std[i]),
                "constraints": constraints,
            })
        })
        .collect();
    serde_json::json!({ "points": points, "parameters": p.parameters })
}

fn moments(mean: f64, std: f64) -> serde_json::Value {
    serde_json::json!({ "mean": mean, "std": std })
}

/// One line per point: the objective's mean ± std, then each constraint's; the pde's
/// constants last.
fn table(run: &Run, at: &[String], p: &Prediction) -> String {
    let mut out = String::new();
    for (i, at) in at.iter().enumerate() {
        out += &format!("{at}: objective {:.6} ± {:.3}", p.mean[i], p.std[i]);
        if let Some(all) = &p.constraints {
            for (c, (m, s)) in run.problem().constraints.iter().zip(all) {
                out += &format!(", {} {:.6} ± {:.3}", c.name, m[i], s[i]);
            }
        }
        out += "\n";
    }
    for (name, e) in &p.parameters {
        let std = e
            .std
            .map_or("std undetermined".to_string(), |s| format!("± {s:.3}"));
        out += &format!("param {name} = {:.6} {std}\n", e.value);
    }
    out
}
