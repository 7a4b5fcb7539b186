//! An external program as the oracle: `oracle command "./simulate {x1} {x2}"`.
//!
//! The template is filled with the point's coordinates (shortest round-trip decimal form) and
//! run by `sh -c` in the problem file's directory (or `workdir`). Stdout holds one number (the
//! objective) or JSON `{"objective": .., "constraints": [..]}`. A non-zero exit, a timeout, or
//! unreadable output is a [`Failure`] with the reason; the run goes on.
//!
//! The command runs in a process group of its own. When its shell exits, the evaluation is
//! over: whatever the group still runs (a background job holding stdout open) is ended. On a
//! timeout the whole group is ended, not only the shell: SIGTERM, then SIGKILL after
//! [`GRACE`]. A program that must outlive an evaluation starts its own session (`setsid`);
//! if it keeps the pipes open, they are read for [`GRACE`] after the shell is gone, no more.

use super::{Evaluation, Failure, Oracle, SetupError};
use pinnbo_dsl::ir::{CommandOracle as Spec, CommandOutput, TemplatePart};
use pinnbo_dsl::Problem;
use rustix::process::{kill_process_group, test_kill_process_group, Pid, Signal};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// How long an ended command's processes have between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// The process groups of the commands running now: a process that must exit at once (a
/// second Ctrl-C) ends them first with [`end_running`], since a command's own group does
/// not receive the signals sent to pinnbo's.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn running() -> std::sync::MutexGuard<'static, Vec<u32>> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Set once [`end_running`] has begun: the process is exiting, and a command it ended has
/// measured nothing.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Ends every command running now (their whole process groups), as [`end_group`] does. The
/// process is exiting: the evaluations so ended never report back (their points stay
/// pending in the journal, evaluated on `--resume`), rather than being journaled as failures
/// that would count against the budget.
pub fn end_running() {
    ENDING.store(true, Ordering::SeqCst);
    let groups: Vec<u32> = running().drain(..).collect();
    std::thread::scope(|s| {
        for group in groups {
            s.spawn(move || end_group(group));
        }
    });
}

/// Ends every process left in the process group `group`: SIGTERM, then SIGKILL to whatever
/// is still there after [`GRACE`].
fn end_group(group: u32) {
    let Some(group) = i32::try_from(group).ok().and_then(Pid::from_raw) else {
        return;
    };
    if kill_process_group(group, Signal::TERM).is_err() {
        return; // nothing left in the group
    }
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if test_kill_process_group(group).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = kill_process_group(group, Signal::KILL);
}

/// What is kept of each of a command's output streams: a number or a JSON object never
/// needs more, and a program that prints without end must not fill the memory.
const OUTPUT_LIMIT: usize = 16 << 20;

/// A pipe read to its end on a thread of its own, keeping the first [`OUTPUT_LIMIT`] bytes.
struct Drain {
    bytes: Arc<Mutex<Vec<u8>>>,
    overflow: Arc<AtomicBool>,
    done: mpsc::Receiver<()>,
}

impl Drain {
    fn start(pipe: Option<Box<dyn Read + Send>>) -> Drain {
        let (bytes, overflow) = (
            Arc::new(Mutex::new(Vec::new())),
            Arc::new(AtomicBool::new(false)),
        );
        let (tell, done) = mpsc::channel();
        let (kept, over) = (bytes.clone(), overflow.clone());
        std::thread::spawn(move || {
            if let Some(mut pipe) = pipe {
                let mut chunk = vec![0u8; 64 << 10];
                while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    let room = OUTPUT_LIMIT.saturating_sub(kept.len()).min(n);
                    kept.extend_from_slice(&chunk[..room]);
                    if room < n {
                        over.store(true, Ordering::Relaxed);
                    }
                }
            }
            let _ = tell.send(());
        });
        Drain {
            bytes,
            overflow,
            done,
        }
    }

    /// The text read by the time the pipe closes, or by `until` if it stays open (a
    /// detached program holding it), and whether more than [`OUTPUT_LIMIT`] came.
    fn finish(self, until: Instant) -> (String, bool) {
        let _ = (self.done).recv_timeout(until.saturating_duration_since(Instant::now()));
        let bytes = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        (
            String::from_utf8_lossy(&bytes).into_owned(),
            self.overflow.load(Ordering::Relaxed),
        )
    }
}

#[derive(Clone)]
pub struct CommandOracle {
    template: Vec<TemplatePart>,
    workdir: PathBuf,
    timeout: Option<Duration>,
    output: CommandOutput,
    constraints: usize,
    /// The JSON keys of the objectives: `objective`, or each objective's name.
    objectives: Vec<String>,
    /// What stands in the command line for each variable (a level by its name).
    coords: Vec<pinnbo_dsl::ir::Coordinate>,
    /// Each `sensors` statement's field and number of places (`Problem::sensor_groups`).
    sensors: Vec<(String, usize)>,
}

impl CommandOracle {
    pub fn new(problem: &Problem, spec: &Spec) -> Result<CommandOracle, SetupError> {
        let file_dir = std::path::Path::new(problem.source.name())
            .parent()
            .map(|p| p.to_path_buf())
            .unwrap_or_default();
        let workdir = match spec.settings.get("workdir") {
            Some(pinnbo_dsl::ir::SettingValue::Str(dir)) => file_dir.join(dir),
            _ => file_dir,
        };
        let workdir = if workdir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            workdir
        };
        if !workdir.is_dir() {
            return Err(SetupError::Located(Box::new(
                pinnbo_dsl::Diagnostic::error(
                    "oracle::no-workdir",
                    spec.span,
                    format!(
                        "the command's working directory {} does not exist",
                        workdir.display()
                    ),
                )
                .with_label("runs in that directory")
                .with_help("`workdir` is relative to the problem file's folder"),
            )));
        }
        if output_needs_json(problem, spec) {
            return Err(SetupError::Located(Box::new(
                pinnbo_dsl::Diagnostic::error(
                    "oracle::needs-json",
                    spec.span,
                    "a problem with constraints needs the command's output as JSON",
                )
                .with_label("prints only the objective")
                .with_help(
                    "add `{ output json }` and print {\"objective\": .., \"constraints\": [..]}",
                ),
            )));
        }
        Ok(CommandOracle {
            template: spec.template.clone(),
            workdir,
            timeout: spec.timeout,
            output: spec.output,
            // The known constraints are computed, never read from the program.
            constraints: problem.measured_constraints().count(),
            objectives: match problem.is_multi_objective() {
                true => problem.objective_names(),
                false => vec!["objective".to_string()],
            },
            coords: problem.coords.clone(),
            sensors: problem.sensor_groups(),
        })
    }

    /// The command line for one point.
    pub fn command_line(&self, x: &[f64]) -> String {
        self.template
            .iter()
            .map(|part| match part {
                TemplatePart::Text(t) => t.clone(),
                TemplatePart::Coord(c) => self.coords[*c].show(x[*c]),
            })
            .collect()
    }

    fn parse(&self, stdout: &str) -> Result<Evaluation, Failure> {
        match self.output {
            CommandOutput::Number => {
                let last = stdout.lines().rev().find(|l| !l.trim().is_empty());
                let Some(line) = last else {
                    return Err(Failure::Parse("the command printed nothing".into()));
                };
                let objective = line.trim().parse::<f64>().map_err(|_| {
                    Failure::Parse(format!(
                        "expected a number, got `{}`",
                        truncate(line.trim())
                    ))
                })?;
                Ok(Evaluation::new(objective, Vec::new()))
            }
            CommandOutput::Json => {
                parse_json(stdout, &self.objectives, self.constraints, &self.sensors)
            }
        }
    }
}

fn output_needs_json(problem: &Problem, spec: &Spec) -> bool {
    (problem.measured_constraints().next().is_some() || !problem.sensors.is_empty())
        && spec.output == CommandOutput::Number
}

/// `{"objective": .., "constraints": [..]}`; with several objectives each by its name in
/// `objectives`.
fn parse_json(
    stdout: &str,
    objectives: &[String],
    constraints: usize,
    sensors: &[(String, usize)],
) -> Result<Evaluation, Failure> {
    let value: serde_json::Value = serde_json::from_str(stdout.trim()).map_err(|e| {
        Failure::Parse(format!(
            "invalid JSON ({e}) in `{}`",
            truncate(stdout.trim())
        ))
    })?;
    let number = |v: &serde_json::Value, what: &str| {
        v.as_f64()
            .ok_or_else(|| Failure::Parse(format!("{what} is not a number: {v}")))
    };
    let values = (objectives.iter())
        .map(|name| match value.get(name) {
            Some(v) => number(v, &format!("\"{name}\"")),
            None => Err(Failure::Parse(format!("the JSON has no \"{name}\""))),
        })
        .collect::<Result<Vec<f64>, Failure>>()?;
    let listed = match value.get("constraints") {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| number(v, &format!("constraint {}", i + 1)))
            .collect::<Result<Vec<f64>, Failure>>()?,
        Some(other) => {
            return Err(Failure::Parse(format!(
                "\"constraints\" must be a list of numbers, got {other}"
            )))
        }
        None => Vec::new(),
    };
    if listed.len() != constraints {
        return Err(Failure::Parse(format!(
            "the problem measures {constraints} constraint(s), the command gave {}",
            listed.len()
        )));
    }
    let sensors = match (value.get("sensors"), sensors.is_empty()) {
        (None, true) => Vec::new(),
        (None, false) => {
            return Err(Failure::Parse(
                "the JSON has no \"sensors\": print {\"sensors\": {\"FIELD\": [..]}} too".into(),
            ))
        }
        (Some(v), _) => {
            let given: std::collections::BTreeMap<String, Vec<f64>> =
                serde_json::from_value(v.clone()).map_err(|_| {
                    Failure::Parse(format!(
                        "\"sensors\" must map each field to a list of numbers, got {}",
                        truncate(&v.to_string())
                    ))
                })?;
            super::sensors_by_field(sensors, &given).map_err(Failure::Parse)?
        }
    };
    Ok(Evaluation {
        sems: Vec::new(),
        objectives: values,
        constraints: listed,
        sensors,
    })
}

/// What a command printed, made fit for a message: at most 200 characters, and every
/// control character (a terminal escape sequence, a carriage return) shown escaped, so
/// that what a program prints cannot drive the user's terminal.
fn truncate(s: &str) -> String {
    const MAX: usize = 200;
    let shown = match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    };
    shown
        .chars()
        .flat_map(|c| match c.is_control() {
            true => c.escape_default().collect::<Vec<_>>(),
            false => vec![c],
        })
        .collect()
}

impl Oracle for CommandOracle {
    /// Each evaluation is its own process, so copies run side by side.
    fn fork(&self) -> Option<Box<dyn Oracle>> {
        Some(Box::new(self.clone()))
    }

    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        let line = self.command_line(x);
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(&self.workdir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| Failure::Spawn(format!("`{line}`: {e}")))?;
        let group = child.id();
        running().push(group);
        // Read both pipes while waiting, so a chatty program cannot block on a full pipe.
        let stdout = Drain::start(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let stderr = Drain::start(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let waited = match self.timeout {
            Some(limit) => child.wait_timeout(limit),
            None => child.wait().map(Some),
        };
        if ENDING.load(Ordering::SeqCst) {
            // Ended by pinnbo itself on its way out: wait for the exit, report nothing.
            loop {
                std::thread::park();
            }
        }
        // The shell is done or out of time: what is left in its group goes (it would keep the
        // pipes open).
        end_group(group);
        running().retain(|g| *g != group);
        let status = match waited {
            Ok(Some(status)) => status,
            Ok(None) => {
                let _ = child.wait();
                let limit = self.timeout.expect("only a timed wait times out");
                return Err(Failure::Timeout(limit.as_secs_f64()));
            }
            Err(e) => return Err(Failure::Other(format!("waiting for `{line}`: {e}"))),
        };
        // A program that left its session (`setsid`) may still hold the pipes: what the
        // command wrote is read until they close or for [`GRACE`] more, never longer.
        let until = Instant::now() + GRACE;
        let (stdout, stdout_overflow) = stdout.finish(until);
        let (stderr, _) = stderr.finish(until);
        if stdout_overflow {
            return Err(Failure::Other(format!(
                "`{line}` wrote more than {} MiB to its standard output; it should print one \
                 number or one JSON object",
                OUTPUT_LIMIT >> 20
            )));
        }
        if !status.success() {
            let last: Vec<&str> = stderr.lines().rev().take(3).collect();
            let tail: Vec<&str> = last.into_iter().rev().collect();
            return Err(Failure::Exit {
                status: status.to_string(),
                stderr: truncate(&tail.join(" | ")),
            });
        }
        self.parse(&stdout)
    }

    fn describe(&self) -> String {
        "external command".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pinnbo_dsl::{compile, Source};

    /// A command oracle for `command`, run in `dir`, with an optional timeout.
    fn oracle(dir: &std::path::Path, command: &str, timeout: &str) -> CommandOracle {
        let text = format!(
            "problem \"p\"\nvar x in [0, 1]\nminimize x\noracle command \"{command}\" {{ {timeout} }}\n"
        );
        let name = dir.join("p.pde");
        let problem = compile(&Source::new(name.to_str().unwrap(), text.as_str()))
            .unwrap()
            .problem;
        match &problem.oracle {
            pinnbo_dsl::ir::Oracle::Command(spec) => CommandOracle::new(&problem, spec).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    fn alive(pid: &str) -> bool {
        let pid = Pid::from_raw(pid.trim().parse().unwrap()).unwrap();
        rustix::process::test_kill_process(pid).is_ok()
    }

    /// A folder of its own, removed when the test ends.
    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    /// A timeout ends the program the shell started and its children, not only the shell.
    #[test]
    fn a_timeout_ends_the_whole_process_group() {
        let scratch = scratch();
        let dir = scratch.path();
        std::fs::write(
            dir.join("slow.sh"),
            "#!/bin/sh\nsleep 60 &\necho $! > child.pid\nwait\n",
        )
        .unwrap();
        let mut o = oracle(dir, "sh slow.sh {x}", "timeout 1 s");
        let result = o.evaluate(&[0.5]);
        assert!(matches!(result, Err(Failure::Timeout(_))), "{result:?}");
        let pid = std::fs::read_to_string(dir.join("child.pid")).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !alive(&pid),
            "the script's child {pid} outlived the timeout"
        );
    }

    /// A background job that keeps stdout open neither delays the result nor survives it.
    #[test]
    fn a_background_job_holding_stdout_is_ended_with_the_command() {
        let scratch = scratch();
        let dir = scratch.path();
        let mut o = oracle(dir, "sleep 30 & echo $! > bg.pid; echo 0.25", "");
        let clock = Instant::now();
        let result = o.evaluate(&[0.5]).unwrap();
        assert_eq!(result.objective(), 0.25);
        assert!(
            clock.elapsed() < Duration::from_secs(20),
            "waited for the background job"
        );
        let pid = std::fs::read_to_string(dir.join("bg.pid")).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !alive(&pid),
            "the background job {pid} outlived the evaluation"
        );
    }

    /// A program that left the command's session (`setsid`) and holds its pipes neither
    /// holds the result past the shell's exit nor a timeout past its limit.
    #[test]
    fn a_detached_program_holding_the_pipes_cannot_hold_the_evaluation() {
        let scratch = scratch();
        let dir = scratch.path();
        let detach = |file: &str| format!("setsid sleep 30 & echo $! > {file}; ");
        let mut o = oracle(dir, &format!("{}sleep 0.2; echo 0.5", detach("a.pid")), "");
        let clock = Instant::now();
        assert_eq!(o.evaluate(&[0.5]).unwrap().objective(), 0.5);
        assert!(clock.elapsed() < Duration::from_secs(20), "waited for it");
        let mut timed = oracle(dir, &format!("{}sleep 30", detach("b.pid")), "timeout 1 s");
        let clock = Instant::now();
        let result = timed.evaluate(&[0.5]);
        assert!(matches!(result, Err(Failure::Timeout(_))), "{result:?}");
        assert!(
            clock.elapsed() < Duration::from_secs(20),
            "waited past the timeout"
        );
        for file in ["a.pid", "b.pid"] {
            let pid = std::fs::read_to_string(dir.join(file)).unwrap();
            let pid = Pid::from_raw(pid.trim().parse().unwrap()).unwrap();
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }

    /// A failure's message shows a program's terminal escape sequences escaped.
    #[test]
    fn escape_sequences_in_a_failure_are_shown_escaped() {
        let scratch = scratch();
        let dir = scratch.path();
        let mut o = oracle(dir, "printf '\\\\033[2Jgone\\\\r' >&2; exit 1", "");
        let failure = o.evaluate(&[0.5]).unwrap_err().to_string();
        assert!(!failure.chars().any(char::is_control), "{failure:?}");
        assert!(failure.contains("\\u{1b}[2Jgone"), "{failure}");
    }

    /// A program that prints without end fails the evaluation; its output is not kept.
    #[test]
    fn output_beyond_the_limit_is_a_failure() {
        let scratch = scratch();
        let dir = scratch.path();
        let mut o = oracle(dir, "head -c 20000000 /dev/zero | tr '\\\\0' 1", "");
        let failure = o.evaluate(&[0.5]).unwrap_err();
        assert!(
            failure.to_string().contains("more than 16 MiB"),
            "{failure}"
        );
    }

    #[test]
    fn json_output_is_checked_against_the_problem() {
        let one = ["objective".to_string()];
        let ok = parse_json(
            r#"{"objective": 1.5, "constraints": [-1, 2]}"#,
            &one,
            2,
            &[],
        )
        .unwrap();
        assert_eq!(ok.constraints, vec![-1.0, 2.0]);
        let wrong = parse_json(r#"{"objective": 1.5}"#, &one, 1, &[]).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            "could not read the command's output: the problem measures 1 constraint(s), the command gave 0"
        );
        let bad = parse_json(r#"{"objective": "x"}"#, &one, 0, &[]).unwrap_err();
        assert!(
            bad.to_string().contains("\"objective\" is not a number"),
            "{bad}"
        );
        let two = ["weight".to_string(), "sag".to_string()];
        let both = parse_json(r#"{"sag": 2, "weight": 1}"#, &two, 0, &[]).unwrap();
        assert_eq!(both.objectives, vec![1.0, 2.0]);
        let missing = parse_json(r#"{"weight": 1}"#, &two, 0, &[]).unwrap_err();
        assert!(
            missing.to_string().contains("the JSON has no \"sag\""),
            "{missing}"
        );
    }
}
