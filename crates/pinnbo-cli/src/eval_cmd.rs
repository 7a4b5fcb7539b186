//! `pinnbo eval`: a problem's objective, constraints and (closed-form) pde terms at one
//! point, from its closed forms or through its oracle (an FDM field, a command).

use crate::exit::Exit;
use crate::formats::{Assigned, Assignment};
use pinnbo_dsl::diag::suggestion;
use pinnbo_dsl::ir::Sense;
use pinnbo_dsl::{Problem, Style};
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pinnbo eval problems/rastrigin-20.pde --at x=0.5\n  \
                        pinnbo eval problems/branin-constrained.pde --at x1=3.14,x2=2.27 --json\n  \
                        pinnbo eval problems/heat1.pde --at x=0.2,y=0.7"
)]
pub struct Options {
    /// The problem file.
    pub file: PathBuf,
    /// The point: `x=0.3,y=1`; vector variables as `x=[1,2,3]`, `x[2]=0.5`, or `x=0.5` for all.
    #[arg(long)]
    pub at: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Let an `oracle command` run its program.
    #[arg(long)]
    pub allow_exec: bool,
}

pub fn run(o: &Options, style: Style) -> Exit {
    // Parsed here rather than by clap so the error can underline the offending column.
    let at = match crate::formats::point(&o.at) {
        Ok(point) => point,
        Err(e) => {
            eprint!("{}", e.render(style));
            return Exit::Usage;
        }
    };
    let (path, at, json): (&Path, &[Assignment], bool) = (&o.file, &at, o.json);
    let Some(problem) = crate::load_or_report(path, style).map(|c| c.problem) else {
        return Exit::Invalid;
    };
    let x = match assemble_point(&problem, at) {
        Ok(x) => x,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Exit::Usage;
        }
    };
    // Outside the bounds is a warning (eval explores); a non-finite coordinate is no point.
    if let Some((c, v)) = (problem.coords.iter().zip(&x)).find(|(_, v)| !v.is_finite()) {
        eprintln!("error: `{}` = {v} is not a finite number", c.name);
        return Exit::Usage;
    }
    match evaluate(&problem, &x, o.allow_exec) {
        Ok(report) => {
            for (_, w) in problem.outside_bounds(&x) {
                eprintln!("warning: {w}");
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report.to_json(&problem, &x)).unwrap_or_default()
                );
            } else {
                print!("{}", report.to_text(&problem, &x));
            }
            if report.all_finite() {
                Exit::Success
            } else {
                eprintln!("error: some values are not finite (a domain error such as the square root of a negative number, or a division by zero)");
                Exit::Invalid
            }
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            Exit::Invalid
        }
    }
}

/// Turns `--at` assignments into a full point, in coordinate order.
pub(crate) fn assemble_point(p: &Problem, at: &[Assignment]) -> Result<Vec<f64>, String> {
    let mut x: Vec<Option<f64>> = vec![None; p.dim()];
    let coord = |name: &str| p.coords.iter().position(|c| c.name == name);
    let elements = |name: &str| -> Vec<usize> {
        let prefix = format!("{name}[");
        (0..p.dim())
            .filter(|&i| p.coords[i].name.starts_with(&prefix))
            .collect()
    };
    for a in at {
        let targets: Vec<usize> = match a.index {
            Some(k) => coord(&format!("{}[{k}]", a.name)).into_iter().collect(),
            None => coord(&a.name)
                .map(|c| vec![c])
                .unwrap_or_else(|| elements(&a.name)),
        };
        if targets.is_empty() {
            let mut names: Vec<&str> = p
                .coords
                .iter()
                .map(|c| c.name.split('[').next().unwrap_or(""))
                .collect();
            names.dedup();
            let shown = match a.index {
                Some(k) => format!("{}[{k}]", a.name),
                None => a.name.clone(),
            };
            let hint = suggestion(&a.name, names.iter().copied())
                .map(|s| format!("; {s}"))
                .unwrap_or_default();
            return Err(format!("`{shown}` is not a variable of {}{hint}", p.name));
        }
        // A variable given twice (`x=0.5,x=0.6`, or a vector and one of its elements): which
        // value was meant is anyone's guess.
        if let Some(&t) = targets.iter().find(|&&t| x[t].is_some()) {
            return Err(format!("`{}` is given twice", p.coords[t].name));
        }
        let categorical = targets.iter().find(|&&t| p.coords[t].is_categorical());
        match (&a.value, categorical) {
            (Assigned::Level(level), _) => {
                for &t in &targets {
                    x[t] = Some(p.coords[t].level_value(level)?);
                }
            }
            (_, Some(&t)) => {
                let c = &p.coords[t];
                return Err(format!(
                    "`{}` is categorical: give one of its levels by name ({})",
                    c.name,
                    c.levels.join(", ")
                ));
            }
            (Assigned::Scalar(v), None) => targets.iter().for_each(|&t| x[t] = Some(*v)),
            (Assigned::List(vs), None) => {
                if vs.len() != targets.len() {
                    return Err(format!(
                        "`{}` has {} elements, but {} values were given",
                        a.name,
                        targets.len(),
                        vs.len()
                    ));
                }
                targets.iter().zip(vs).for_each(|(&t, v)| x[t] = Some(*v));
            }
        }
    }
    let missing: Vec<&str> = x
        .iter()
        .zip(&p.coords)
        .filter(|(v, _)| v.is_none())
        .map(|(_, c)| c.name.as_str())
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(5).copied().collect();
        let more = if missing.len() > 5 {
            format!(" and {} more", missing.len() - 5)
        } else {
            String::new()
        };
        return Err(format!(
            "--at gives no value for {}{more}",
            shown.join(", ")
        ));
    }
    Ok(x.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

struct PdeTerms {
    line: usize,
    rhs: Option<f64>,
    residual: Option<f64>,
}

struct Report {
    /// Every objective's value, the first first.
    objectives: Vec<f64>,
    constraints: Vec<(String, f64)>,
    /// What the sensors read, named as `history.csv` heads them.
    sensors: Vec<(String, f64)>,
    pdes: Vec<PdeTerms>,
}

fn evaluate(p: &Problem, x: &[f64], allow_exec: bool) -> Result<Report, String> {
    let (objectives, values, sensors) = match p.closed_form_objective() {
        Ok(objective) => {
            let mut objectives = vec![objective.eval(x)];
            for o in &p.other_objectives {
                let f = (p.closed_form(&o.expr))
                    .map_err(|e| format!("cannot evaluate an objective: {e}"))?;
                objectives.push(f.eval(x));
            }
            let mut values = Vec::new();
            for c in &p.constraints {
                let f = p
                    .closed_form(&c.expr)
                    .map_err(|e| format!("cannot evaluate constraint `{}`: {e}", c.name))?;
                values.push(f.eval(x));
            }
            let sensors =
                (p.sensor_readers()).map_err(|e| format!("cannot evaluate the sensors: {e}"))?;
            (
                objectives,
                values,
                sensors.iter().map(|s| s.read(x)).collect(),
            )
        }
        // No closed form: the file's oracle measures it, as `solve` would.
        Err(_) => {
            let mut oracle =
                pinnbo_core::oracle::from_problem(p, allow_exec).map_err(|e| e.to_string())?;
            let e = oracle
                .evaluate(x)
                .map_err(|f| format!("the oracle failed: {f}"))?;
            (e.objectives, e.constraints, e.sensors)
        }
    };
    let sensors = p.sensor_names().into_iter().zip(sensors).collect();
    let names = p.constraints.iter().map(|c| c.name.clone());
    let constraints = names.zip(values).collect();
    let pdes = p
        .pdes
        .iter()
        .map(|pde| PdeTerms {
            line: p.source.line_col(pde.span.start).0,
            rhs: p.closed_form(&pde.rhs).ok().map(|f| f.eval(x)),
            residual: p.closed_form(&pde.residual()).ok().map(|f| f.eval(x)),
        })
        .collect();
    Ok(Report {
        objectives,
        constraints,
        sensors,
        pdes,
    })
}

impl Report {
    fn all_finite(&self) -> bool {
        self.objectives.iter().all(|v| v.is_finite())
            && self.constraints.iter().all(|(_, v)| v.is_finite())
            && self.sensors.iter().all(|(_, v)| v.is_finite())
            && self
                .pdes
                .iter()
                .all(|t| t.rhs.is_none_or(f64::is_finite) && t.residual.is_none_or(f64::is_finite))
    }

    fn to_text(&self, p: &Problem, x: &[f64]) -> String {
        let mut out = String::new();
        let point: Vec<String> = p
            .coords
            .iter()
            .zip(x)
            .map(|(c, v)| format!("{} = {}", c.name, c.show(*v)))
            .collect();
        out += &format!("point      {}\n", point.join(", "));
        for (o, v) in p.objectives().zip(&self.objectives) {
            let sense = match o.sense {
                Sense::Minimize => "minimize",
                Sense::Maximize => "maximize",
            };
            match (&o.name, p.is_multi_objective()) {
                (Some(name), true) => out += &format!("objective  {name}: {v} ({sense})\n"),
                _ => out += &format!("objective  {v} ({sense})\n"),
            }
        }
        for (name, v) in &self.constraints {
            let status = if *v <= 0.0 { "satisfied" } else { "violated" };
            out += &format!("constraint {name}: {v} <= 0 ({status})\n");
        }
        for (name, v) in &self.sensors {
            out += &format!("sensor     {name} = {v}\n");
        }
        for (i, t) in self.pdes.iter().enumerate() {
            out += &format!("pde {} (line {})", i + 1, t.line);
            if let Some(rhs) = t.rhs {
                out += &format!(": right-hand side {rhs}");
            }
            if let Some(r) = t.residual {
                out += &format!(", residual of the closed form {r:e}");
            }
            out += "\n";
        }
        out
    }

    fn to_json(&self, p: &Problem, x: &[f64]) -> serde_json::Value {
        let mut out = self.values_json(p, x);
        if !self.sensors.is_empty() {
            let sensors = (self.sensors.iter())
                .map(|(n, v)| json!({"name": n, "value": finite(*v)}))
                .collect();
            out["sensors"] = serde_json::Value::Array(sensors);
        }
        out
    }

    fn values_json(&self, p: &Problem, x: &[f64]) -> serde_json::Value {
        let point = pinnbo_core::run::named_values(p, x);
        let objectives: serde_json::Map<String, serde_json::Value> = (p.objective_names())
            .into_iter()
            .zip(&self.objectives)
            .map(|(n, v)| (n, json!(finite(*v))))
            .collect();
        json!({
            "problem": p.name,
            "point": point,
            "objective": finite(self.objectives[0]),
            "objectives": objectives,
            "constraints": self.constraints.iter().map(|(n, v)| json!({
                "name": n, "value": finite(*v), "satisfied": *v <= 0.0
            })).collect::<Vec<_>>(),
            "pdes": self.pdes.iter().map(|t| json!({
                "line": t.line, "rhs": t.rhs.and_then(finite), "residual": t.residual.and_then(finite)
            })).collect::<Vec<_>>(),
        })
    }
}

/// JSON has no NaN: non-finite values are written as null.
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}
