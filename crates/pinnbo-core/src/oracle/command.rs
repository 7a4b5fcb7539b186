//! An external program as the oracle: `oracle command "./simulate {x1} {x2}"`.
//!
//! The template is filled with the point's coordinates (shortest round-trip decimal form) and
//! run by `sh -c` in the problem file's directory (or `workdir`). Stdout holds one number (the
//! objective) or JSON `{"objective": .., "constraints": [..]}`. A non-zero exit, a timeout, or
//! unreadable output is a [`Failure`] with the reason; the run goes on.

use super::{Evaluation, Failure, Oracle, SetupError};
use pinnbo_dsl::ir::{CommandOracle as Spec, OutputFormat, TemplatePart};
use pinnbo_dsl::Problem;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

pub struct CommandOracle {
    template: Vec<TemplatePart>,
    workdir: PathBuf,
    timeout: Option<Duration>,
    output: OutputFormat,
    constraints: usize,
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
            return Err(SetupError::Plain(format!(
                "the command's working directory {} does not exist",
                workdir.display()
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
            constraints: problem.constraints.len(),
        })
    }

    /// The command line for one point.
    pub fn command_line(&self, x: &[f64]) -> String {
        self.template
            .iter()
            .map(|part| match part {
                TemplatePart::Text(t) => t.clone(),
                TemplatePart::Coord(c) => format!("{}", x[*c]),
            })
            .collect()
    }

    fn parse(&self, stdout: &str) -> Result<Evaluation, Failure> {
        match self.output {
            OutputFormat::Number => {
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
                Ok(Evaluation {
                    objective,
                    constraints: Vec::new(),
                })
            }
            OutputFormat::Json => parse_json(stdout, self.constraints),
        }
    }
}

fn output_needs_json(problem: &Problem, spec: &Spec) -> bool {
    !problem.constraints.is_empty() && spec.output == OutputFormat::Number
}

fn parse_json(stdout: &str, constraints: usize) -> Result<Evaluation, Failure> {
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
    let objective = match value.get("objective") {
        Some(v) => number(v, "\"objective\"")?,
        None => return Err(Failure::Parse("the JSON has no \"objective\"".into())),
    };
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
            "the problem has {constraints} constraint(s), the command gave {}",
            listed.len()
        )));
    }
    Ok(Evaluation {
        objective,
        constraints: listed,
    })
}

fn truncate(s: &str) -> String {
    const MAX: usize = 200;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

impl Oracle for CommandOracle {
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        let line = self.command_line(x);
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(&self.workdir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::Spawn(format!("`{line}`: {e}")))?;
        // Read both pipes while waiting, so a chatty program cannot block on a full pipe.
        let read = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut text = String::new();
                if let Some(mut p) = pipe {
                    let mut bytes = Vec::new();
                    let _ = p.read_to_end(&mut bytes);
                    text = String::from_utf8_lossy(&bytes).into_owned();
                }
                text
            })
        };
        let stdout = read(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let stderr = read(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let status = match self.timeout {
            Some(limit) => match child.wait_timeout(limit) {
                Ok(Some(status)) => status,
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(Failure::Timeout(limit.as_secs_f64()));
                }
                Err(e) => return Err(Failure::Other(format!("waiting for `{line}`: {e}"))),
            },
            None => child
                .wait()
                .map_err(|e| Failure::Other(format!("waiting for `{line}`: {e}")))?,
        };
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
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

    #[test]
    fn json_output_is_checked_against_the_problem() {
        let ok = parse_json(r#"{"objective": 1.5, "constraints": [-1, 2]}"#, 2).unwrap();
        assert_eq!(ok.constraints, vec![-1.0, 2.0]);
        let wrong = parse_json(r#"{"objective": 1.5}"#, 1).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            "could not read the command's output: the problem has 1 constraint(s), the command gave 0"
        );
        let bad = parse_json(r#"{"objective": "x"}"#, 0).unwrap_err();
        assert!(
            bad.to_string().contains("\"objective\" is not a number"),
            "{bad}"
        );
    }
}
