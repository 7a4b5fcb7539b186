//! `pinnbo bench`: every (problem, method, seed) run journaled under OUT, in parallel and
//! resumable; then `results.csv`, a regret plot per problem, the significance tests
//! (`stats.csv`) and `report.md`.

use crate::exit::Exit;
use indicatif::{ProgressBar, ProgressStyle};
use pinnbo_core::bench::results::{self, Comparison, Report, Row};
use pinnbo_core::bench::{self, BenchObserver, Outcome, Plan, Status};
use pinnbo_core::run::outputs::{cell, csv_document};
use pinnbo_core::run::{atomic, PdeVerdicts};
use pinnbo_core::strategies::registry;
use pinnbo_core::{Observer, Record, Run};
use pinnbo_dsl::Style;
use pinnbo_report::plot::{self, Band, Bands, Scale};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most seeds one benchmark takes: every seed is a run per problem and method, and the
/// plan lists them all before starting.
const MAX_SEEDS: u64 = 10_000;

/// `--quick`: this many seeds and steps after each problem's initial design.
const QUICK_SEEDS: u64 = 3;
const QUICK_STEPS: usize = 5;
const DEFAULT_SEEDS: u64 = 10;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
                        pinnbo bench problems/dropwave.pde problems/beam.pde --methods pinn-bo,neural-bo,gp-ei --seeds 5\n  \
                        pinnbo bench problems/branin-constrained.pde --methods gp-ei,random --quick
  \
                        pinnbo bench problems/beam.pde --methods gp-ei,random --out b --only 3
  \
                        pinnbo bench problems/beam.pde --methods gp-ei,random --out b --reduce")]
pub struct Options {
    /// The problem files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Comma-separated methods; a method that does not apply to a problem is skipped there.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "pinn-bo,neural-bo,neural-greedy,gp-ei,gp-ucb,random"
    )]
    pub methods: Vec<String>,
    /// Seeds 0..N, shared by all methods (the same initial design and noise per seed)
    /// [default: 10, or 3 with --quick; at most 10,000].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_SEEDS))]
    pub seeds: Option<u64>,
    /// Total evaluations per run, overriding every file's budget.
    #[arg(long)]
    pub budget: Option<usize>,
    /// Runs at a time [default: the number of cores].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// The folder holding every run's journal and the reports (re-running continues it).
    #[arg(long, default_value = "bench")]
    pub out: PathBuf,
    /// The method the others are tested against [default: the first of --methods].
    #[arg(long)]
    pub against: Option<String>,
    /// The Benjamini–Hochberg false-discovery rate.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// A small profile: 3 seeds, each problem's initial design plus 5 steps.
    #[arg(long)]
    pub quick: bool,
    /// Let an `oracle command` run its program.
    #[arg(long)]
    pub allow_exec: bool,
    /// Print nothing but errors.
    #[arg(long, short, conflicts_with = "json")]
    pub quiet: bool,
    /// Print the report as JSON (no progress bar).
    #[arg(long)]
    pub json: bool,
    /// Print the plan's runs, one `K<TAB>problem<TAB>method<TAB>seed` line each, and stop.
    #[arg(long, conflicts_with_all = ["only", "reduce"])]
    pub list: bool,
    /// Execute only the plan's run K (from 0, as --list numbers them) in its folder under
    /// --out, without a report: one task of a cluster's array job.
    #[arg(long, value_name = "K", conflicts_with = "reduce")]
    pub only: Option<usize>,
    /// Evaluate nothing: reduce the runs already in --out (made by --only tasks, possibly
    /// on other machines) to the report; missing or unfinished runs are listed.
    #[arg(long)]
    pub reduce: bool,
    #[command(flatten)]
    pub device: crate::DeviceArg,
}

pub fn run(o: &Options, style: Style) -> Exit {
    if let Err(msg) = check_options(o) {
        eprintln!("error: {msg}");
        return Exit::Usage;
    }
    let jobs = o.jobs.unwrap_or_else(crate::threads::cores);
    let threads_per_run = crate::threads::share_among(jobs);
    if let Some(hardware) = o.device.hardware() {
        // Refused once here, as `solve` refuses it, rather than run by run as not applicable.
        if let Err(e) = pinnbo_core::device::open(hardware) {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    }
    let plan = match plan(o, style) {
        Ok(p) => p,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}");
            }
            return Exit::Invalid;
        }
    };
    if o.list {
        for (k, spec) in plan.runs().iter().enumerate() {
            let problem = &plan.problems[spec.problem].name;
            println!("{k}\t{problem}\t{}\t{}", spec.method, spec.seed);
        }
        return Exit::Success;
    }
    if let Some(k) = o.only {
        return execute_one(&plan, k);
    }
    // Held until the report is written.
    let _claim = match plan.lock_out() {
        Ok(file) => file,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let outcomes = match o.reduce {
        true => plan.runs().iter().map(|spec| plan.collect(spec)).collect(),
        false => execute(&plan, jobs, threads_per_run, o.quiet || o.json),
    };
    if outcomes
        .iter()
        .all(|out| matches!(out.status, bench::Status::NotApplicable(_)))
    {
        eprintln!("error: none of --methods applies to any of the problems; nothing was run");
        return Exit::Usage;
    }
    let rows: Vec<Vec<Row>> = outcomes
        .iter()
        .map(|out| {
            let problem = &plan.problems[out.spec.problem];
            let optimum = plan.optima[out.spec.problem].map(|m| m.value);
            results::rows(
                problem,
                optimum,
                &out.spec.method,
                out.spec.seed,
                &out.records,
            )
        })
        .collect();
    let against = o.against.clone().unwrap_or_else(|| o.methods[0].clone());
    let report = results::report(&plan, &outcomes, &rows, &against, o.alpha);
    let text = Texts {
        markdown: markdown(&plan, &outcomes, &report),
        json: serde_json::to_string_pretty(&report).expect("plain data") + "\n",
    };
    if let Err(e) = write_outputs(&plan, &rows, &report, &text) {
        eprintln!("error: {e}");
        return Exit::Invalid;
    }
    if o.json {
        print!("{}", text.json);
    } else if !o.quiet {
        print!("{}", text.markdown);
        println!("output in {}", plan.out.display());
    }
    let stopped = outcomes
        .iter()
        .filter(|out| matches!(out.status, Status::Stopped(_)))
        .count();
    if stopped > 0 && o.reduce {
        for (k, out) in outcomes.iter().enumerate() {
            if let Status::Stopped(why) = &out.status {
                eprintln!("missing: run {k} ({why}); make it with --only {k}");
            }
        }
        eprintln!("error: {stopped} run(s) missing or unfinished; the report counts the rest");
        return Exit::Stopped;
    }
    if stopped > 0 {
        eprintln!(
            "error: {stopped} run(s) stopped early (see report.md); re-run the same command to continue them"
        );
        return Exit::Stopped;
    }
    Exit::Success
}

/// Executes the plan's run `k` alone (an array job's task): no claim on the bench folder,
/// no report; its status on standard error.
fn execute_one(plan: &Plan, k: usize) -> Exit {
    let runs = plan.runs();
    let Some(spec) = runs.get(k) else {
        eprintln!(
            "error: --only {k}: the plan has {} runs, numbered from 0 (--list shows them)",
            runs.len()
        );
        return Exit::Usage;
    };
    let out = plan.execute(spec, &());
    let what = format!(
        "run {k}: {} {} seed {}",
        plan.problems[spec.problem].name, spec.method, spec.seed
    );
    match &out.status {
        Status::Finished | Status::Reused => {
            eprintln!("{what}: done in {}", plan.dir(spec).display());
            Exit::Success
        }
        Status::NotApplicable(why) => {
            eprintln!("{what}: skipped: {why}");
            Exit::Success
        }
        Status::Stopped(why) => {
            eprintln!("error: {what} stopped: {why}; run the same command to continue it");
            Exit::Stopped
        }
    }
}

fn check_options(o: &Options) -> Result<(), String> {
    if let Some(m) = o
        .methods
        .iter()
        .find(|m| !registry::available().any(|a| a == *m))
    {
        let available: Vec<&str> = registry::available().collect();
        return Err(format!(
            "unknown method `{m}`; available: {}",
            available.join(", ")
        ));
    }
    if o.methods.is_empty() {
        return Err("--methods needs at least one method".into());
    }
    // A method listed twice would run each of its runs twice and count them twice.
    let twice = (o.methods.iter().enumerate()).find(|(i, m)| o.methods[..*i].contains(m));
    if let Some((_, m)) = twice {
        return Err(format!("`{m}` is listed twice in --methods"));
    }
    if let Some(a) = &o.against {
        if !o.methods.contains(a) {
            return Err(format!("--against {a} is not one of --methods"));
        }
    }
    if o.device.device.is_some() && !o.methods.iter().any(|m| registry::trains_networks(m)) {
        return Err(format!(
            "--device applies to the methods that train networks, and none of {} does",
            o.methods.join(", ")
        ));
    }
    if o.seeds == Some(0) || o.budget == Some(0) || o.jobs == Some(0) {
        return Err("--seeds, --budget and --jobs must be at least 1".into());
    }
    if !(o.alpha > 0.0 && o.alpha < 1.0) {
        return Err("--alpha must be between 0 and 1".into());
    }
    Ok(())
}

/// Loads every file (reporting all invalid ones) and finds each problem's optimum.
fn plan(o: &Options, style: Style) -> Result<Plan, String> {
    let loaded: Vec<_> = o
        .files
        .iter()
        .map(|f| crate::load_or_report(f, style))
        .collect();
    if loaded.iter().any(Option::is_none) {
        return Err(String::new());
    }
    let problems: Vec<_> = loaded.into_iter().flatten().map(|c| c.problem).collect();
    let runs_commands =
        |p: &&pinnbo_dsl::Problem| matches!(p.oracle, pinnbo_dsl::ir::Oracle::Command(_));
    if let Some(p) = problems
        .iter()
        .find(runs_commands)
        .filter(|_| !o.allow_exec)
    {
        return Err(format!(
            "{} runs an external command; pass --allow-exec to let the benchmark run it",
            p.source.name()
        ));
    }
    for (i, p) in problems.iter().enumerate() {
        if problems[..i].iter().any(|q| q.name == p.name) {
            return Err(format!(
                "two files define problem `{}`; their runs would share a folder",
                p.name
            ));
        }
    }
    let optima = problems
        .iter()
        .map(|p| bench::optimum(p).map_err(|e| format!("{}: {e}", p.source.name())))
        .collect::<Result<Vec<_>, _>>()?;
    let seeds = o
        .seeds
        .unwrap_or(if o.quick { QUICK_SEEDS } else { DEFAULT_SEEDS });
    Ok(Plan {
        problems,
        optima,
        methods: o.methods.clone(),
        seeds: (0..seeds).collect(),
        budget: o.budget,
        quick_steps: o.quick.then_some(QUICK_STEPS),
        out: o.out.clone(),
        allow_exec: o.allow_exec,
        device: o.device.hardware(),
    })
}

/// Runs the plan with a progress bar over all evaluations.
fn execute(plan: &Plan, jobs: usize, threads_per_run: usize, quiet: bool) -> Vec<Outcome> {
    let runs = plan.runs();
    let total: usize = runs.iter().map(|r| plan.config(r).budget).sum();
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} eval  {msg}  ETA {eta}",
        )
        .expect("valid template"),
    );
    bar.enable_steady_tick(crate::STEADY_TICK);
    let progress = Progress {
        plan,
        runs: runs.len(),
        finished: AtomicUsize::new(0),
        bar,
    };
    let outcomes = plan.execute_all(jobs, threads_per_run, &progress);
    progress.bar.finish_and_clear();
    outcomes
}

/// One progress bar over every run's evaluations; runs that stop or do not apply are noted
/// above it.
struct Progress<'a> {
    plan: &'a Plan,
    runs: usize,
    finished: AtomicUsize,
    bar: ProgressBar,
}

impl Observer for Progress<'_> {
    /// A resumed or reused run's journaled evaluations count at once.
    fn on_start(&self, run: &Run) {
        self.bar.inc(run.records().len() as u64);
    }

    fn on_record(&self, _run: &Run, _record: &Record) {
        self.bar.inc(1);
    }
}

impl BenchObserver for Progress<'_> {
    fn on_outcome(&self, out: &Outcome) {
        let k = self.finished.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.set_message(format!("{k}/{} runs", self.runs));
        let problem = &self.plan.problems[out.spec.problem].name;
        let what = format!("{problem} {} seed {}", out.spec.method, out.spec.seed);
        match &out.status {
            Status::Stopped(why) => self.bar.println(format!("warning: {what} stopped: {why}")),
            Status::NotApplicable(why) => self.bar.println(format!("note: {what} skipped: {why}")),
            Status::Finished | Status::Reused => {}
        }
    }
}

/// The report as `report.md` and `report.json` hold it (and as printed).
struct Texts {
    markdown: String,
    json: String,
}

fn write_outputs(
    plan: &Plan,
    rows: &[Vec<Row>],
    report: &Report,
    text: &Texts,
) -> Result<(), String> {
    let out = &plan.out;
    let io = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let csv = out.join("results.csv");
    atomic::write(&csv, results::csv(rows.iter().flatten()).as_bytes()).map_err(|e| io(&csv, e))?;
    let stats = out.join("stats.csv");
    atomic::write(&stats, stats_csv(&report.comparisons).as_bytes()).map_err(|e| io(&stats, e))?;
    let md = out.join("report.md");
    atomic::write(&md, text.markdown.as_bytes()).map_err(|e| io(&md, e))?;
    let json = out.join("report.json");
    atomic::write(&json, text.json.as_bytes()).map_err(|e| io(&json, e))?;
    for p in &report.problems {
        draw(out, p).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `<problem>.png`: each method's mean metric ± standard error against evaluations.
fn draw(out: &Path, p: &results::ProblemReport) -> Result<(), plot::PlotError> {
    let points: Vec<Vec<(f64, f64, f64)>> = p
        .curves
        .iter()
        .map(|c| c.points.iter().map(|&(x, m, s)| (x as f64, m, s)).collect())
        .collect();
    let bands: Vec<Band> = p
        .curves
        .iter()
        .zip(&points)
        .map(|(c, pts)| Band {
            label: &c.method,
            points: pts,
        })
        .collect();
    let last = points.iter().flatten().map(|q| q.0).fold(2.0, f64::max);
    let title = format!(
        "{}: {} (mean ± s.e. over seeds)",
        p.problem,
        p.metric.label()
    );
    plot::bands(
        &out.join(format!("{}.png", p.problem)),
        &Bands {
            title: &title,
            x: Scale {
                label: "evaluations",
                lo: 1.0,
                hi: last,
            },
            y_label: p.metric.label(),
            bands: &bands,
            log: !matches!(
                p.metric,
                results::Metric::BestValue | results::Metric::Hypervolume
            ),
        },
    )
}

/// A unit enum variant's name as serde writes it (`regret-plus-violation`).
fn serialized_name(v: impl serde::Serialize) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

fn stats_csv(comparisons: &[Comparison]) -> String {
    let header = [
        "problem",
        "baseline",
        "against",
        "metric",
        "baseline_mean",
        "against_mean",
        "t",
        "df",
        "p_value",
        "q_value",
        "rejected",
        "pairs",
        "w_plus",
        "paired_p_value",
        "paired_q_value",
        "paired_rejected",
        "note",
    ]
    .map(String::from);
    let rows = comparisons.iter().map(|c| {
        vec![
            c.problem.clone(),
            c.baseline.clone(),
            c.against.clone(),
            serialized_name(c.metric),
            c.baseline_mean.to_string(),
            c.against_mean.to_string(),
            cell(c.t),
            cell(c.df),
            cell(c.p_value),
            cell(c.q_value),
            c.rejected.map_or(String::new(), |r| r.to_string()),
            c.paired.map_or(String::new(), |t| t.pairs.to_string()),
            cell(c.paired.map(|t| t.w_plus)),
            cell(c.paired.map(|t| t.p_value)),
            cell(c.paired_q_value),
            c.paired_rejected.map_or(String::new(), |r| r.to_string()),
            c.note.clone().unwrap_or_default(),
        ]
    });
    csv_document(&header, rows)
}

/// `report.md`'s count of a method's verdicts: "41 of 150 (dropped by leave-one-out 109)";
/// a dash for a method without a check.
fn kept_cell(verdicts: Option<&PdeVerdicts>) -> String {
    let Some(v) = verdicts else {
        return "–".to_string();
    };
    match v.dropped_by.is_empty() {
        true => format!("{} of {}", v.kept, v.steps),
        false => format!("{} of {} (dropped by {})", v.kept, v.steps, v.drops()),
    }
}

/// The report: per problem a table of final values and the plot, then the tests, the runs
/// that did not finish, and where the time went.
fn markdown(plan: &Plan, outcomes: &[Outcome], report: &Report) -> String {
    let mut s = String::from("# Benchmark report\n\n");
    let _ = writeln!(
        s,
        "Methods: {}. Seeds: {} ({}..={}). Each method's initial design and noise are the seed's.\n",
        plan.methods.join(", "),
        plan.seeds.len(),
        plan.seeds.first().unwrap_or(&0),
        plan.seeds.last().unwrap_or(&0)
    );
    for (index, p) in report.problems.iter().enumerate() {
        let budget = plan.config(&bench::RunSpec {
            problem: index,
            method: plan.methods[0].clone(),
            seed: 0,
        });
        let _ = writeln!(s, "## {}\n", p.problem);
        let optimum = p.optimum.map_or("not known".to_string(), |o| {
            format!("{} (from {})", o.value, serialized_name(o.source))
        });
        let _ = writeln!(
            s,
            "Budget {} ({} initial). Optimum: {optimum}. Metric at the final budget: {}.\n",
            budget.budget,
            budget.init,
            p.metric.label()
        );
        s += "| method | runs | mean | standard error | left out | pde kept at (of the steps) |\n";
        s += "|---|---|---|---|---|---|\n";
        for f in &p.finals {
            let kept = kept_cell(f.pde_kept.as_ref());
            let _ = writeln!(
                s,
                "| {} | {} | {:.4e} | {:.2e} | {} | {kept} |",
                f.method, f.moments.n, f.moments.mean, f.moments.std_error, f.left_out
            );
        }
        let _ = writeln!(s, "\n![{}]({}.png)\n", p.problem, p.problem);
    }
    let _ = writeln!(
        s,
        "## One-sided Welch t-tests against {} (H1: the baseline's mean is greater; Benjamini–Hochberg at {})\n",
        report.against, report.alpha
    );
    s += "| problem | baseline | baseline mean | against mean | t | df | p | q | H0 rejected |\n";
    s += "|---|---|---|---|---|---|---|---|---|\n";
    let num = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.3}"));
    let verdict = |rejected: Option<bool>, note: &Option<String>| match (rejected, note) {
        (Some(true), _) => "T".to_string(),
        (Some(false), _) => "F".to_string(),
        (None, Some(note)) => format!("– ({note})"),
        (None, None) => "–".to_string(),
    };
    for c in &report.comparisons {
        let verdict = verdict(c.rejected, &c.note);
        let _ = writeln!(
            s,
            "| {} | {} | {:.4e} | {:.4e} | {} | {} | {} | {} | {verdict} |",
            c.problem,
            c.baseline,
            c.baseline_mean,
            c.against_mean,
            num(c.t),
            num(c.df),
            num(c.p_value),
            num(c.q_value)
        );
    }
    let _ = writeln!(
        s,
        "\n## One-sided signed-rank tests against {} on each seed's pair (H1: the baseline's values are greater; Benjamini–Hochberg at {})\n",
        report.against, report.alpha
    );
    s += "| problem | baseline | seeds that differ | W+ | p | q | H0 rejected |\n";
    s += "|---|---|---|---|---|---|---|\n";
    for c in &report.comparisons {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.problem,
            c.baseline,
            c.paired.map_or("–".to_string(), |t| t.pairs.to_string()),
            c.paired.map_or("–".to_string(), |t| t.w_plus.to_string()),
            num(c.paired.map(|t| t.p_value)),
            num(c.paired_q_value),
            verdict(c.paired_rejected, &c.note)
        );
    }
    let unfinished: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| matches!(o.status, Status::Stopped(_) | Status::NotApplicable(_)))
        .collect();
    if !unfinished.is_empty() {
        s += "\n## Runs not counted\n\n";
        for o in unfinished {
            let (what, why) = match &o.status {
                Status::Stopped(w) => ("stopped", w),
                Status::NotApplicable(w) => ("not applicable", w),
                _ => unreachable!("filtered above"),
            };
            let _ = writeln!(
                s,
                "- {} {} seed {}: {what}: {why}",
                plan.problems[o.spec.problem].name, o.spec.method, o.spec.seed
            );
        }
    }
    s += "\n## Time per method (seconds, all runs)\n\n";
    s += "| method | runs | evaluations | training | acquisition | oracle | total |\n";
    s += "|---|---|---|---|---|---|---|\n";
    for t in &report.timings {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            t.method,
            t.runs,
            t.evaluations,
            t.training,
            t.acquisition,
            t.oracle,
            t.training + t.acquisition + t.oracle
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reports_count_names_what_dropped_the_pde() {
        let verdicts = |kept, dropped_by: &[(&str, usize)]| PdeVerdicts {
            steps: 150,
            kept,
            dropped_by: (dropped_by.iter())
                .map(|(why, n)| (why.to_string(), *n))
                .collect(),
        };
        assert_eq!(kept_cell(None), "–");
        assert_eq!(kept_cell(Some(&verdicts(150, &[]))), "150 of 150");
        assert_eq!(
            kept_cell(Some(&verdicts(
                41,
                &[("leave-one-out", 100), ("targets", 9)]
            ))),
            "41 of 150 (dropped by leave-one-out 100, targets 9)"
        );
    }
}
