//! `pinnbo ask` and `pinnbo tell`: a run whose evaluations are made elsewhere (a lab, a
//! cluster, another program). Each call is a short process: it opens the run's journal (its
//! lock keeps writers one at a time), journals what it was given, and exits.
//!
//! A continued run is read from its own folder: the header's settings and the problem text
//! the run follows (`journal.pde`), so a worker needs only the folder.

use crate::exit::Exit;
use pinnbo_core::run::ask_tell::{Outcome, Told};
use pinnbo_core::run::journal::{Ask, JournalError};
use pinnbo_core::run::{Run, RunError};
use pinnbo_core::{BuildError, Evaluation, Optimization};
use pinnbo_dsl::{Problem, Style};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pinnbo ask problems/beam.pde --out beam-lab --method gp-ei\n  \
                        pinnbo ask beam-lab -n 4 --json\n  \
                        pinnbo ask beam-lab --pending"
)]
pub struct AskOptions {
    /// A run folder to continue, or a problem file to start a run from (in --out).
    pub target: PathBuf,
    /// How many new points to hand out; each sees the ones before it as pending.
    #[arg(short = 'n', long = "count", default_value_t = 1)]
    pub count: usize,
    /// List the points asked and not yet told, instead of asking new ones.
    #[arg(long, conflicts_with = "count")]
    pub pending: bool,
    /// Starting a run: its folder (default ./<problem>-<method>-seed<seed>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Starting a run: the method (default: the file's).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(pinnbo_core::strategies::registry::available()))]
    pub method: Option<String>,
    /// Starting a run: its seed (default: the file's, else 0).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Total evaluations, the initial design included; on a run folder, raises (or lowers)
    /// the run's budget.
    #[arg(long)]
    pub budget: Option<usize>,
    /// Print JSON instead of one `ID<TAB>name=value,...` line per point.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pinnbo tell beam-lab --id 10 --objective 0.731\n  \
                        pinnbo tell branin-lab --id 12 --objective 3.2 --constraints -0.5\n  \
                        pinnbo tell lab --id 3 --objective 0.8 --constraints cooling=-0.2,purity=0.1\n  \
                        pinnbo tell beam-lab --id 11 --failed \"the rig overheated\"\n  \
                        pinnbo tell beam-lab --at x=0.4 --objective 0.9\n  \
                        pinnbo tell design-lab --id 7 --objective weight=3.1,sag=0.02"
)]
pub struct TellOptions {
    /// The run folder.
    pub dir: PathBuf,
    /// The id `pinnbo ask` gave the point.
    #[arg(long, required_unless_present = "at", conflicts_with = "at")]
    pub id: Option<usize>,
    /// A point that was not asked (an extra observation): `x=0.3,y=1`, as `pinnbo eval --at`.
    #[arg(long)]
    pub at: Option<String>,
    /// The objective's measured value; with several objectives each by name,
    /// `weight=3.1,sag=0.02`.
    #[arg(long, allow_hyphen_values = true, required_unless_present = "failed")]
    pub objective: Option<String>,
    /// The objective's standard error as measured (Ax's `sem`): this observation's own
    /// noise in the GP methods' models; with several objectives each by name,
    /// `weight=0.1,sag=0.001`.
    #[arg(long, allow_hyphen_values = true)]
    pub sem: Option<String>,
    /// The constraints' measured values: comma-separated in the file's order, or each by
    /// name, `cooling=-0.2,purity=0.1` (a known constraint, of the variables alone, is
    /// computed and never told).
    #[arg(long, allow_hyphen_values = true)]
    pub constraints: Option<String>,
    /// What the sensors read, one field at a time in the order of its `sensors`
    /// statements: `--sensors T=0.1,0.2,0.4` (repeat for another field).
    #[arg(long, allow_hyphen_values = true)]
    pub sensors: Vec<String>,
    /// The evaluation failed: why (journaled; the run goes on).
    #[arg(long, conflicts_with_all = ["objective", "sem", "constraints", "sensors"])]
    pub failed: Option<String>,
}

pub fn ask(o: &AskOptions, style: Style) -> Exit {
    let opened = match o.target.is_dir() {
        true => continue_run(&o.target, o.budget),
        false => start_run(o, style),
    };
    let mut run = match opened {
        Ok(run) => run,
        Err(exit) => return exit,
    };
    if o.pending {
        let asks: Vec<Ask> = run.pending().into_iter().cloned().collect();
        print_points(run.problem(), &asks, o.json);
        return Exit::Success;
    }
    // Each point is printed as soon as it is journaled (JSON: the array once complete).
    let problem = run.problem().clone();
    let mut asked = Vec::new();
    let outcome = run.ask_each(o.count, |a| match o.json {
        true => asked.push(a.clone()),
        false => print_points(&problem, std::slice::from_ref(a), false),
    });
    if let Err(e) = outcome {
        eprintln!("error: {e}");
        return Exit::Invalid;
    }
    if o.json {
        print_points(&problem, &asked, true);
    }
    Exit::Success
}

pub fn tell(o: &TellOptions, style: Style) -> Exit {
    let mut run = match continue_run(&o.dir, None) {
        Ok(run) => run,
        Err(exit) => return exit,
    };
    let outcome = match (&o.failed, &o.objective) {
        (Some(why), _) => Outcome::Failed(why.clone()),
        (None, Some(told)) => {
            match (per_objective(run.problem(), "--objective", told)).and_then(|values| {
                let constraints = constraints(run.problem(), o.constraints.as_deref())?;
                let sems = match &o.sem {
                    Some(sem) => per_objective(run.problem(), "--sem", sem)?,
                    None => Vec::new(),
                };
                Ok((
                    values,
                    constraints,
                    sensors(run.problem(), &o.sensors)?,
                    sems,
                ))
            }) {
                Ok((values, constraints, sensors, sems)) => Outcome::Values(Evaluation {
                    sems: sems.into_iter().map(Some).collect(),
                    objectives: values,
                    constraints,
                    sensors,
                }),
                Err(message) => {
                    eprintln!("error: {message}");
                    return Exit::Usage;
                }
            }
        }
        (None, None) => unreachable!("clap requires --objective or --failed"),
    };
    let told = match (&o.id, &o.at) {
        (Some(id), _) => run.tell(*id, outcome),
        (None, Some(at)) => {
            let x = match crate::formats::point(at) {
                Ok(at) => crate::eval_cmd::assemble_point(run.problem(), &at),
                Err(e) => {
                    eprint!("{}", e.render(style));
                    return Exit::Usage;
                }
            };
            match x {
                Ok(x) => run.tell_extra(x, outcome).map(Told::Recorded),
                Err(msg) => {
                    eprintln!("error: {msg}");
                    return Exit::Usage;
                }
            }
        }
        (None, None) => unreachable!("clap requires --id or --at"),
    };
    match told {
        Ok(Told::Recorded(index)) => {
            eprintln!("recorded as evaluation {}", index + 1);
        }
        Ok(Told::AlreadyRecorded(index)) => {
            eprintln!(
                "already recorded as evaluation {}: nothing changed",
                index + 1
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    }
    if let Err(e) = run.write_outputs() {
        eprintln!("error: {e}");
        return Exit::Invalid;
    }
    Exit::Success
}

/// `--sensors T=0.1,0.2` (each field once) as the problem's sensor values in order.
fn sensors(problem: &Problem, told: &[String]) -> Result<Vec<f64>, String> {
    let usage = || {
        let each: Vec<String> = (problem.sensor_groups().into_iter())
            .map(|(f, _)| format!("--sensors {f}=v1,v2,.."))
            .collect();
        format!("sensor values are given by field: {}", each.join(" "))
    };
    let mut given = std::collections::BTreeMap::new();
    for t in told {
        let Some((field, values)) = t.split_once('=') else {
            return Err(usage());
        };
        let values = (values.split(','))
            .map(|v| v.trim().parse::<f64>())
            .collect::<Result<Vec<f64>, _>>()
            .map_err(|_| {
                format!("--sensors {field}=..: the values must be numbers, found `{values}`")
            })?;
        if given.insert(field.trim().to_string(), values).is_some() {
            return Err(format!("--sensors gives `{field}` twice"));
        }
    }
    if given.is_empty() && problem.sensors.is_empty() {
        return Ok(Vec::new());
    }
    let groups = problem.sensor_groups();
    pinnbo_core::oracle::sensors_by_field(&groups, &given).map_err(|e| format!("--sensors: {e}"))
}

/// `--objective` or `--sem` (`flag`): a number, or with several objectives `name=value` for
/// each.
fn per_objective(problem: &Problem, flag: &str, told: &str) -> Result<Vec<f64>, String> {
    let names = problem.objective_names();
    if !problem.is_multi_objective() {
        return (told.trim().parse::<f64>())
            .map(|v| vec![v])
            .map_err(|_| format!("{flag} must be a number, found `{told}`"));
    }
    by_name(flag, ("an", "objective"), &names, told)
}

/// `--constraints`: numbers in the file's order (checked against the problem later, as a
/// command's are), or each constraint by name, `cooling=-0.2,purity=0.1`: the measured
/// constraints only (pinnbo computes the known ones).
fn constraints(problem: &Problem, told: Option<&str>) -> Result<Vec<f64>, String> {
    let Some(told) = told else {
        return Ok(Vec::new());
    };
    let numbers: Result<Vec<f64>, _> = told.split(',').map(|v| v.trim().parse()).collect();
    if let Ok(numbers) = numbers {
        return Ok(numbers);
    }
    let names: Vec<String> = problem
        .measured_constraints()
        .map(|c| c.name.clone())
        .collect();
    let given = |name: &str| told.split(',').any(|p| p.split('=').next() == Some(name));
    if let Some(c) = (problem.constraints.iter()).find(|c| c.is_known() && given(&c.name)) {
        return Err(format!(
            "`{}` is a known constraint: pinnbo computes it from the variables, so it is \
             never told; --constraints takes the measured ones: {}",
            c.name,
            names.join(", ")
        ));
    }
    by_name("--constraints", ("a", "constraint"), &names, told)
}

/// `told` as `name=value` for each of `names`, in their order: none unknown, twice or left
/// out (`flag` and `what`, an article and a noun, name them in the messages).
fn by_name(
    flag: &str,
    (article, what): (&str, &str),
    names: &[String],
    told: &str,
) -> Result<Vec<f64>, String> {
    let usage = format!("{flag} takes each {what} by name: {}", {
        let each: Vec<String> = names.iter().map(|n| format!("{n}=..")).collect();
        each.join(",")
    });
    let given = crate::formats::point(told).map_err(|_| usage.clone())?;
    let mut values = vec![None; names.len()];
    for a in given {
        let k = names.iter().position(|n| *n == a.name);
        match (k, a.index, a.value) {
            (Some(k), None, _) if values[k].is_some() => {
                return Err(format!("{flag} gives `{}` twice", a.name))
            }
            (Some(k), None, crate::formats::Assigned::Scalar(v)) => values[k] = Some(v),
            (None, ..) => return Err(format!("`{}` is not {article} {what}; {usage}", a.name)),
            _ => return Err(usage),
        }
    }
    let missing: Vec<&str> = (names.iter().zip(&values))
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    match missing.is_empty() {
        true => Ok(values.into_iter().flatten().collect()),
        false => Err(format!("{flag} gives no value for {}", missing.join(", "))),
    }
}

/// How long `ask` and `tell` wait for another process writing the same run (a lab script
/// telling several values at once) before giving up.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// Opens the run in `dir` from its own folder; `budget` amends its budget. While another
/// process writes the run, waits for it (up to [`LOCK_WAIT`], saying so once).
pub(crate) fn continue_run(dir: &Path, budget: Option<usize>) -> Result<Run, Exit> {
    let started = Instant::now();
    let mut said = false;
    loop {
        let reopened = Optimization::reopen(dir).map(|o| match budget {
            Some(b) => o.budget(b),
            None => o,
        });
        let run = reopened.and_then(|o| o.for_ask_tell().resume(dir));
        let busy = matches!(
            &run,
            Err(BuildError::Run(RunError::Journal(
                JournalError::Busy { .. }
            )))
        );
        if !busy || started.elapsed() >= LOCK_WAIT {
            return built(run);
        }
        if !said {
            eprintln!(
                "note: another process is writing {}; waiting for it (at most {} s)",
                dir.display(),
                LOCK_WAIT.as_secs()
            );
            said = true;
        }
        // Staggered by process, so that waiting writers do not retry in lockstep.
        std::thread::sleep(Duration::from_millis(
            20 + u64::from(std::process::id() % 40),
        ));
    }
}

fn start_run(o: &AskOptions, style: Style) -> Result<Run, Exit> {
    let problem = crate::load_or_report(&o.target, style)
        .ok_or(Exit::Invalid)?
        .problem;
    let mut optimization = Optimization::new(problem);
    if let Some(m) = &o.method {
        optimization = optimization.method(m);
    }
    if let Some(s) = o.seed {
        optimization = optimization.seed(s);
    }
    if let Some(b) = o.budget {
        optimization = optimization.budget(b);
    }
    let dir = match &o.out {
        Some(dir) => dir.clone(),
        None => crate::solve_cmd::default_folder(optimization.problem(), optimization.config()),
    };
    if dir.join("journal.jsonl").exists() {
        eprintln!(
            "error: {} already holds a run; ask it for points with `pinnbo ask {}`",
            dir.display(),
            dir.display()
        );
        return Err(Exit::Invalid);
    }
    let run = built(optimization.for_ask_tell().start(&dir))?;
    eprintln!("started a run in {}", dir.display());
    Ok(run)
}

fn built(run: Result<Run, BuildError>) -> Result<Run, Exit> {
    run.map_err(|e| {
        eprintln!("error: {e}");
        match e {
            BuildError::Method(_) => Exit::Usage,
            _ => Exit::Invalid,
        }
    })
}

/// One `ID<TAB>name=value,...` line per point (the `--at` syntax of `pinnbo eval` and
/// `pinnbo tell`), or a JSON array.
fn print_points(problem: &Problem, asks: &[Ask], as_json: bool) {
    if as_json {
        let points: Vec<_> = asks
            .iter()
            .map(|a| {
                let at = pinnbo_core::run::named_values(problem, &a.x);
                json!({ "id": a.id, "phase": a.phase, "x": a.x, "at": at })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&points).expect("plain data")
        );
        return;
    }
    for a in asks {
        let at: Vec<String> = problem
            .coords
            .iter()
            .zip(&a.x)
            .map(|(c, v)| format!("{}={}", c.name, c.show(*v)))
            .collect();
        println!("{}\t{}", a.id, at.join(","));
    }
    // Shown before the next point is proposed, even when stdout is a pipe.
    let _ = std::io::Write::flush(&mut std::io::stdout());
}
