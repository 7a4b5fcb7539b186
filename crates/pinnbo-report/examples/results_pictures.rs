//! The pictures of docs/results.md, drawn from the committed result files with pinnbo's own
//! plotting (the same as `pinnbo bench`'s pictures).
//!
//! ```sh
//! # mean regret ± standard error against evaluations, a curve per method (results.csv rows)
//! cargo run -p pinnbo-report --example results_pictures -- convergence OUT.png TITLE A.csv ..
//! # BBOB: the share of (function, instance, target) triples reached against evaluations
//! # (COCO's 51 targets 1e2 .. 1e-8 on f − f_opt), a curve per label (the runs' rows)
//! cargo run -p pinnbo-report --example results_pictures -- targets OUT.png TITLE \
//!     LABEL=NAME,.. A.csv ..
//! ```

use pinnbo_core::bench::stats::Moments;
use pinnbo_report::plot::{self, Band, Bands, Scale};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// A labelled curve: (x, mean, standard error) points.
type Curve = (String, Vec<(f64, f64, f64)>);
/// What the runs measured, by run and evaluation: label or method, then run, then step.
type ByRun<K> = BTreeMap<String, BTreeMap<K, BTreeMap<usize, f64>>>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let drawn = match args.first().map(String::as_str) {
        Some("convergence") if args.len() >= 4 => convergence(&args[1], &args[2], &args[3..]),
        Some("targets") if args.len() >= 5 => targets(&args[1], &args[2], &args[3], &args[4..]),
        _ => Err(
            "usage: results_pictures convergence OUT TITLE CSV.. | targets OUT TITLE \
                  LABEL=NAME,.. CSV.."
                .into(),
        ),
    };
    match drawn {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Every row of the CSV files, each a map from the header's names to the cells.
fn rows(files: &[String]) -> Result<Vec<BTreeMap<String, String>>, String> {
    let mut all = Vec::new();
    for file in files {
        let mut reader = csv::Reader::from_path(file).map_err(|e| format!("{file}: {e}"))?;
        let header = reader
            .headers()
            .map_err(|e| format!("{file}: {e}"))?
            .clone();
        for record in reader.records() {
            let record = record.map_err(|e| format!("{file}: {e}"))?;
            all.push(
                header
                    .iter()
                    .map(String::from)
                    .zip(record.iter().map(String::from))
                    .collect(),
            );
        }
    }
    Ok(all)
}

fn number(row: &BTreeMap<String, String>, column: &str) -> Result<f64, String> {
    let cell = row.get(column).ok_or(format!("no column `{column}`"))?;
    cell.parse()
        .map_err(|_| format!("`{column}` is `{cell}`, not a number"))
}

fn draw(
    out: &str,
    title: &str,
    x_label: &str,
    y_label: &str,
    curves: &[Curve],
    log: bool,
) -> Result<(), String> {
    let bands: Vec<Band> = (curves.iter())
        .map(|(label, points)| Band { label, points })
        .collect();
    let last = curves
        .iter()
        .flat_map(|c| &c.1)
        .map(|p| p.0)
        .fold(2.0, f64::max);
    let plot = Bands {
        title,
        x: Scale {
            label: x_label,
            lo: 1.0,
            hi: last,
        },
        y_label,
        bands: &bands,
        log,
    };
    plot::bands(Path::new(out), &plot).map_err(|e| e.to_string())
}

/// Each method's mean regret ± standard error over its seeds at each evaluation every seed
/// reached.
fn convergence(out: &str, title: &str, files: &[String]) -> Result<(), String> {
    // method -> evaluation -> seed -> regret
    let mut by: BTreeMap<String, BTreeMap<usize, BTreeMap<String, f64>>> = BTreeMap::new();
    for row in rows(files)? {
        let evaluation = number(&row, "evaluation")? as usize;
        (by.entry(row["method"].clone())
            .or_default()
            .entry(evaluation)
            .or_default())
        .insert(row["seed"].clone(), number(&row, "regret")?);
    }
    let curves: Vec<Curve> = (by.into_iter())
        .map(|(method, evaluations)| {
            let seeds = evaluations.values().map(BTreeMap::len).max().unwrap_or(0);
            let points = (evaluations.into_iter())
                .filter(|(_, s)| s.len() == seeds)
                .map(|(t, s)| {
                    // As `pinnbo bench` draws its curves: no band over one seed.
                    let m = Moments::of(&s.into_values().collect::<Vec<_>>());
                    (t as f64, m.mean, if m.n > 1 { m.std_error } else { 0.0 })
                })
                .collect();
            (format!("{method} ({seeds} seeds)"), points)
        })
        .collect();
    draw(out, title, "evaluations", "simple regret", &curves, true)
}

/// COCO's targets on `f − f_opt`: 10^2 down to 10^-8, five per decade.
fn coco_targets() -> Vec<f64> {
    (0..51).map(|k| 10f64.powf(2.0 - 0.2 * k as f64)).collect()
}

/// The share of (function, instance, target) triples each label's runs reached by each
/// evaluation; `names` picks the labels drawn and names them (`LABEL=NAME,..`).
fn targets(out: &str, title: &str, names: &str, files: &[String]) -> Result<(), String> {
    let chosen: Vec<(&str, &str)> = (names.split(','))
        .map(|p| p.split_once('=').ok_or(format!("`{p}` is not LABEL=NAME")))
        .collect::<Result<_, _>>()?;
    // label -> (function, instance) -> evaluation -> precision
    let mut by: ByRun<(u32, u32)> = BTreeMap::new();
    for row in rows(files)? {
        if !chosen.iter().any(|(label, _)| *label == row["label"]) {
            continue;
        }
        let run = (
            number(&row, "function")? as u32,
            number(&row, "instance")? as u32,
        );
        (by.entry(row["label"].clone())
            .or_default()
            .entry(run)
            .or_default())
        .insert(
            number(&row, "evaluation")? as usize,
            number(&row, "precision")?,
        );
    }
    let targets = coco_targets();
    let mut curves = Vec::new();
    for (label, name) in chosen {
        let runs = by.get(label).ok_or(format!("no rows labelled `{label}`"))?;
        let budget = runs.values().map(BTreeMap::len).min().unwrap_or(0);
        let mut reached = vec![0usize; budget];
        for evaluations in runs.values() {
            let mut best = f64::INFINITY;
            for (t, precision) in evaluations.values().take(budget).enumerate() {
                best = best.min(*precision);
                reached[t] += targets.iter().filter(|target| best <= **target).count();
            }
        }
        let triples = (runs.len() * targets.len()) as f64;
        let points = (reached.iter().enumerate())
            .map(|(t, r)| ((t + 1) as f64, *r as f64 / triples, 0.0))
            .collect();
        curves.push((format!("{name} ({} runs)", runs.len()), points));
    }
    draw(
        out,
        title,
        "evaluations",
        "share of targets reached",
        &curves,
        false,
    )
}
