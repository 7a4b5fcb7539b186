//! `pinnbo solve`: run an optimization on a problem file, journaled and resumable, with a
//! progress bar and a final report; writes summary.json, history.csv and a convergence plot.

use crate::exit::Exit;
use indicatif::{ProgressBar, ProgressStyle};
use pinnbo_core::oracle::SetupError;
use pinnbo_core::run::amend;
use pinnbo_core::run::journal::Header;
use pinnbo_core::run::{Run, RunConfig, RunError};
use pinnbo_core::{BuildError, Observer, Optimization, Record};
use pinnbo_dsl::{Problem, Style};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  pinnbo solve problems/beam.pde\n  \
                        pinnbo solve problems/branin-constrained.pde --method gp-ei --seed 1 --budget 40\n  \
                        pinnbo solve --resume branin-constrained-gp-ei-seed1 --budget 60")]
pub struct Options {
    /// The problem file (with --resume, by default the file the run started from).
    #[arg(required_unless_present = "resume")]
    pub file: Option<PathBuf>,
    /// The method (default: the file's `method`, else physics-gp for a linear pde, pinn-bo for a
    /// nonlinear one, gp-ei without a pde); `pinnbo methods` lists them
    /// with their settings.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(pinnbo_core::strategies::registry::available()))]
    pub method: Option<String>,
    /// The run's seed: every random choice flows from it (default: the file's `seed`, else 0).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Total evaluations, the initial design included (default: the file's `budget`, else 50).
    #[arg(long)]
    pub budget: Option<usize>,
    /// Output folder (default ./<problem>-<method>-seed<seed>, or with -2, -3, .. appended
    /// when that holds a run already).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue the run journaled in this folder; with --budget, to that many evaluations.
    #[arg(long, conflicts_with = "out")]
    pub resume: Option<PathBuf>,
    /// With --resume: continue although the problem file changed since the run started.
    #[arg(long, requires = "resume")]
    pub accept_changed: bool,
    /// Start from evaluations made earlier: a CSV with a column per variable, `objective`
    /// and one per constraint. They count toward the budget and replace as many
    /// initial-design points.
    #[arg(long, conflicts_with = "resume")]
    pub import: Option<PathBuf>,
    /// Let an `oracle command` run its program.
    #[arg(long)]
    pub allow_exec: bool,
    /// Keep up to N evaluations of a command oracle running at once, proposing the next point
    /// as each finishes (the others still running are seen as pending).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub parallel: Option<u16>,
    /// Print nothing but errors.
    #[arg(long, short, conflicts_with = "json")]
    pub quiet: bool,
    /// Print the summary as JSON (no progress bar).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub device: crate::DeviceArg,
}

pub fn run(options: &Options, style: Style) -> Exit {
    // A resumed run's settings, read once: its header with what earlier resumes recorded.
    let resumed = match options
        .resume
        .as_deref()
        .map(amend::read_settings)
        .transpose()
    {
        Ok(header) => header,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let file = match problem_file(options, resumed.as_ref()) {
        Ok(f) => f,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Exit::Invalid;
        }
    };
    let checked = match &file {
        ProblemText::File(path) => crate::load_or_report(path, style),
        ProblemText::Kept(source) => crate::compile_or_report(source, style),
    };
    let Some(checked) = checked else {
        return Exit::Invalid;
    };
    let file = PathBuf::from(checked.problem.source.name());
    let problem = checked.problem;
    if matches!(problem.oracle, pinnbo_dsl::ir::Oracle::External) {
        eprintln!(
            "error: {}'s oracle is external: its values are measured outside pinnbo, so drive \
             it with `pinnbo ask {}` and `pinnbo tell`",
            file.display(),
            file.display()
        );
        return Exit::Invalid;
    }
    let (config, dir) = match configure(&problem, options, resumed) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Exit::Invalid;
        }
    };
    let source = problem.source.clone();
    let imported = match &options.import {
        Some(path) => match pinnbo_core::run::import::read(&problem, path) {
            Ok(rows) => rows,
            Err(msg) => {
                eprintln!("error: {msg}");
                return Exit::Invalid;
            }
        },
        None => Vec::new(),
    };
    let mut optimization = Optimization::new(problem)
        .import(imported)
        .run_config(config)
        .allow_exec(options.allow_exec);
    if let Some(device) = options.device.hardware() {
        optimization = optimization.device(device);
    }
    let setup = match optimization.setup() {
        Ok(s) => s,
        Err(BuildError::Method(msg)) => {
            eprintln!("error: {msg}");
            return Exit::Usage;
        }
        Err(BuildError::Setup(e)) => {
            report_setup(&source, e, style);
            return Exit::Invalid;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let started = if options.resume.is_some() {
        Run::resume(setup, &dir)
    } else {
        Run::start(setup, &dir)
    };
    let mut run = match started {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let writing = Arc::new(AtomicBool::new(false));
    let outcome = drive(
        &mut run,
        options.quiet || options.json,
        options.parallel,
        &writing,
    );
    // From here a signal ends the process at once: the journal is whole, and the outputs
    // (each written whole) can be written again by `--resume`.
    writing.store(true, Ordering::SeqCst);
    let summary = run.summary();
    match pinnbo_report::write_outputs(&mut run) {
        Ok(written) => {
            for warning in &written.warnings {
                eprintln!("warning: {warning}");
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    }
    if options.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("plain data")
        );
    } else if !options.quiet {
        crate::solve_report::print_report(&run, &summary);
    }
    match outcome {
        Ok(()) => Exit::Success,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!(
                "note: {} evaluations are journaled in {}; continue with --resume {}",
                run.records().len(),
                run.dir().display(),
                run.dir().display()
            );
            Exit::Stopped
        }
    }
}

fn report_setup(source: &pinnbo_dsl::Source, e: SetupError, style: Style) {
    match e {
        SetupError::Located(d) => {
            eprint!(
                "{}",
                pinnbo_dsl::render(source, std::slice::from_ref(&*d), style)
            );
            eprintln!("error: {}", d.message);
        }
        SetupError::Plain(msg) => eprintln!("error: {msg}"),
    }
}

/// Where the problem's text comes from.
enum ProblemText {
    File(PathBuf),
    /// The copy a run keeps of the text it follows (`journal.pde`), under the name it
    /// started with.
    Kept(pinnbo_dsl::Source),
}

/// The problem file given; when resuming without one, the file the run started from, or
/// where that is not there (a run started from Python text, or moved), the copy of the text
/// the run keeps.
fn problem_file(o: &Options, resumed: Option<&Header>) -> Result<ProblemText, String> {
    match (&o.file, &o.resume, resumed) {
        (Some(file), _, _) => Ok(ProblemText::File(file.clone())),
        (None, Some(dir), Some(header)) => {
            let file = PathBuf::from(&header.file);
            if file.is_file() {
                return Ok(ProblemText::File(file));
            }
            let kept = dir.join(amend::SNAPSHOT);
            // Read as any problem file (bounded, UTF-8), named as the run started.
            match pinnbo_dsl::read(&kept) {
                Ok(text) => Ok(ProblemText::Kept(pinnbo_dsl::Source::new(
                    header.file.as_str(),
                    text.text(),
                ))),
                Err(_) => Err(format!(
                    "the run in {} started from {}, which is not there from this folder, and \
                     its copy {} cannot be read; name the problem file: pinnbo solve FILE \
                     --resume {}",
                    dir.display(),
                    header.file,
                    kept.display(),
                    dir.display()
                )),
            }
        }
        _ => Err("name a problem file, or a run to continue with --resume".into()),
    }
}

/// The run's settings: the file's, then the flags; when resuming, the journal's header (with
/// what earlier resumes recorded) fills what the flags leave out.
fn configure(
    problem: &Problem,
    o: &Options,
    resumed: Option<Header>,
) -> Result<(RunConfig, PathBuf), String> {
    let mut config = RunConfig::from_problem(problem);
    config.accept_changed = o.accept_changed;
    if let Some(header) = resumed {
        config.method = header.method;
        config.seed = header.seed;
        config.budget = header.budget;
        config.init = header.init;
    }
    if let Some(m) = &o.method {
        config.method = m.clone();
    }
    if let Some(s) = o.seed {
        config.seed = s;
    }
    if let Some(b) = o.budget {
        if b == 0 {
            return Err("--budget must be at least 1".into());
        }
        config.budget = b;
        // A new run's design fits its budget; a resumed run keeps the design it started
        // with (a budget within it ends the run there).
        if o.resume.is_none() {
            if b < config.init {
                eprintln!(
                    "note: --budget {b} leaves room for {b} of the initial design's {} points; \
                     no step of the method will run",
                    config.init
                );
            }
            config.init = config.init.min(b);
        }
    }
    let dir = match (&o.resume, &o.out) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => default_folder(problem, &config),
    };
    if o.resume.is_none() && dir.join("journal.jsonl").exists() {
        return Err(format!(
            "{} already holds a run; continue it with --resume {}, or choose another --out",
            dir.display(),
            dir.display()
        ));
    }
    Ok((config, dir))
}

/// `./<problem>-<method>-seed<seed>`, never clobbering an earlier run: -2, -3, .. are tried
/// in turn.
pub(crate) fn default_folder(problem: &Problem, config: &RunConfig) -> PathBuf {
    let base = format!("{}-{}-seed{}", problem.name, config.method, config.seed);
    (1..)
        .map(|k| match k {
            1 => PathBuf::from(&base),
            _ => PathBuf::from(format!("{base}-{k}")),
        })
        .find(|d| !d.join("journal.jsonl").exists())
        .expect("an unused folder name")
}

/// Steps the run to its budget with a progress bar (hidden when `quiet` or not a terminal),
/// `parallel` evaluations at a time if given. Ctrl-C or SIGTERM stops it before the next
/// evaluation starts (waiting for those running); a second one ends the running commands
/// and exits at once, as does the first once `writing` is set (the outputs are being
/// written after the run).
fn drive(
    run: &mut Run,
    quiet: bool,
    parallel: Option<u16>,
    writing: &Arc<AtomicBool>,
) -> Result<(), RunError> {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(run.config().budget as u64)
    };
    match Signals::new([SIGINT, SIGTERM]) {
        Ok(mut signals) => {
            let (writing, dir) = (writing.clone(), run.dir().to_path_buf());
            std::thread::spawn(move || {
                for signal in signals.forever() {
                    if writing.load(Ordering::SeqCst) {
                        eprintln!(
                            "note: stopped while writing the outputs; the journal is whole: \
                             `pinnbo solve --resume {}` writes them again",
                            dir.display()
                        );
                        std::process::exit(128 + signal);
                    }
                    if pinnbo_core::interrupt::requested() {
                        // The second: the commands run in groups of their own, and would
                        // outlive us.
                        pinnbo_core::oracle::end_running_commands();
                        std::process::exit(128 + signal);
                    }
                    // The first: the run stops before its next evaluation, and the fits and
                    // searches of a step under way return at once (nothing of it is kept).
                    pinnbo_core::interrupt::request();
                }
            });
        }
        Err(e) => bar.println(format!("warning: signals will stop the run at once: {e}")),
    }
    let progress = Progress { bar };
    match parallel {
        Some(workers) => run.drive_parallel(usize::from(workers), &progress),
        None => run.drive(&progress),
    }
}

/// The progress bar: evaluations done, the best feasible objective so far, failures as
/// warnings above it; the run stops once a signal asked for it.
struct Progress {
    bar: ProgressBar,
}

impl Observer for Progress {
    fn should_stop(&self) -> bool {
        pinnbo_core::interrupt::requested()
    }

    fn on_start(&self, run: &Run) {
        self.bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} eval  best {msg}  ETA {eta}",
            )
            .expect("valid template"),
        );
        self.bar.set_position(run.records().len() as u64);
        // The clock and spinner tick on their own: an evaluation may take an hour, and a
        // bar that only moves when one ends looks like a hang.
        self.bar.enable_steady_tick(crate::STEADY_TICK);
    }

    fn on_record(&self, run: &Run, record: &Record) {
        if let Some(f) = &record.failure {
            let at: Vec<String> = run
                .problem()
                .coords
                .iter()
                .zip(&record.x)
                .map(|(c, v)| format!("{} = {v}", c.name))
                .collect();
            self.bar.println(format!(
                "warning: evaluation {} failed at {}: {f}",
                record.index + 1,
                at.join(", ")
            ));
        }
        let summary = run.summary();
        let mut message = match (summary.progress(), summary.pareto.is_some()) {
            (Some(v), true) => format!("hypervolume {v:.6}"),
            (Some(v), false) => format!("{v:.6}"),
            (None, _) => "none feasible".to_string(),
        };
        if let Some(since) = summary.convergence.and_then(|c| c.converged_since) {
            message += &format!("  converged at {since}");
        }
        self.bar.set_message(message);
        self.bar.inc(1);
    }

    fn on_finish(&self, _run: &Run, _outcome: Result<(), &RunError>) {
        self.bar.finish_and_clear();
    }
}
