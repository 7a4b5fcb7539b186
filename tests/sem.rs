//! A told value's own standard error (`pinnbo tell --sem`, Python `tell(sem=)`): journaled,
//! written to `history.csv`, used as that observation's noise by the GP methods, and
//! refused where nothing would use it.

mod common;

use common::text;
use std::path::{Path, PathBuf};

fn pinnbo(dir: &Path, args: &[&str]) -> std::process::Output {
    common::pinnbo(dir, args)
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("sem-{name}"))
}

/// A wave measured elsewhere: `f'' + 4 f = 0` holds for `sin(2x + 0.3)`.
fn wave(method: &str) -> String {
    format!(
        "problem \"wave\"\nvar x in [0, 1]\nfield f(x)\npde dxx(f) + 4 * f = 0\nminimize f\n\
         oracle external\nbudget 20, init 8\nmethod {method}\n"
    )
}

fn truth(x: f64) -> f64 {
    (2.0 * x + 0.3).sin()
}

/// Tells the initial design's exact values, then a wild value at `x = 0.55` (with `sem`,
/// if given), and returns the model's mean there.
fn mean_after_a_wild_value(method: &str, sem: Option<&str>) -> f64 {
    let dir = scratch(&format!("{method}-{}", sem.is_some()));
    std::fs::write(dir.join("wave.pde"), wave(method)).unwrap();
    let out = pinnbo(
        &dir,
        &["ask", "wave.pde", "--out", "run", "-n", "8", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let asked: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for point in asked.as_array().unwrap() {
        let id = point["id"].as_u64().unwrap().to_string();
        let x = point["x"][0].as_f64().unwrap();
        let value = truth(x).to_string();
        let out = pinnbo(&dir, &["tell", "run", "--id", &id, "--objective", &value]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let mut tell = vec!["tell", "run", "--at", "x=0.55", "--objective", "5"];
    if let Some(sem) = sem {
        tell.extend(["--sem", sem]);
    }
    let out = pinnbo(&dir, &tell);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = pinnbo(&dir, &["predict", "run", "--at", "x=0.55", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["points"][0]["objective"]["mean"].as_f64().unwrap()
}

/// A value told with a large standard error hardly moves the model, where the same value
/// told without one drags it: for the plain GP and for physics-gp's.
#[test]
fn a_told_standard_error_is_that_observations_noise() {
    for method in ["gp-ei", "physics-gp"] {
        let expected = truth(0.55);
        let told = mean_after_a_wild_value(method, Some("100"));
        let plain = mean_after_a_wild_value(method, None);
        assert!(
            (told - expected).abs() < 0.02,
            "{method}: {told} vs {expected}"
        );
        assert!(
            (plain - expected).abs() > 0.1,
            "{method}: {plain} vs {expected}"
        );
    }
}

/// Journaled with the value and written to `history.csv`; told again the same, a retry.
#[test]
fn a_standard_error_is_journaled_and_written() {
    let dir = scratch("journal");
    std::fs::write(dir.join("wave.pde"), wave("gp-ei")).unwrap();
    assert_eq!(
        pinnbo(&dir, &["ask", "wave.pde", "--out", "run"])
            .status
            .code(),
        Some(0)
    );
    let tell = [
        "tell",
        "run",
        "--id",
        "0",
        "--objective",
        "0.4",
        "--sem",
        "0.02",
    ];
    let out = pinnbo(&dir, &tell);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let journal = std::fs::read_to_string(dir.join("run/journal.jsonl")).unwrap();
    assert!(journal.contains("\"sems\":[0.02]"), "{journal}");
    let csv = std::fs::read_to_string(dir.join("run/history.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let sem = header
        .iter()
        .position(|h| *h == "sem")
        .expect("a sem column");
    assert_eq!(row[sem], "0.02");
    let again = pinnbo(&dir, &tell);
    assert_eq!(again.status.code(), Some(0));
    assert!(text(&again.stderr).contains("already recorded"));
}

/// Refused, with the reason, before anything is journaled.
#[test]
fn a_standard_error_nothing_would_use_is_refused() {
    let cases: [(&str, &str, &[&str], &str); 4] = [
        (
            "negative",
            &wave("gp-ei"),
            &["--objective", "0.4", "--sem", "-0.1"],
            "error: the standard error of `objective` must be finite and at least 0, not -0.1",
        ),
        (
            "random",
            &wave("random"),
            &["--objective", "0.4", "--sem", "0.1"],
            "error: random models no observation noise, so a told standard error would be \
             kept and never used; the methods that use it: ",
        ),
        (
            "two",
            "problem \"two\"\nvar x in [0, 1]\nfield f(x)\nfield g(x)\nminimize cost: f\n\
             minimize mass: g\noracle external\nbudget 10, init 4\nmethod gp-ei\n",
            &["--objective", "cost=1,mass=2", "--sem", "0.1"],
            "error: --sem takes each objective by name: cost=..,mass=..",
        ),
        (
            "sensed",
            "problem \"rod\"\nvar a in [0, 1]\ncoord x in [0, 1]\nfield T(x, a)\n\
             sensors T at x = 0.2, 0.8\nminimize T(0.5, a)\noracle external\n\
             budget 10, init 4\nmethod gp-ei\n",
            &["--objective", "1", "--sensors", "T=0.1,0.2", "--sem", "0.1"],
            "error: this problem's objective is read from its sensors (T@0.2, T@0.8)",
        ),
    ];
    for (name, file, told, message) in cases {
        let dir = scratch(name);
        std::fs::write(dir.join("p.pde"), file).unwrap();
        let out = pinnbo(&dir, &["ask", "p.pde", "--out", "run"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let journal = std::fs::read(dir.join("run/journal.jsonl")).unwrap();
        let mut args = vec!["tell", "run", "--id", "0"];
        args.extend(told);
        let out = pinnbo(&dir, &args);
        assert_ne!(out.status.code(), Some(0), "{name}");
        assert!(
            text(&out.stderr).starts_with(message),
            "{name}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            std::fs::read(dir.join("run/journal.jsonl")).unwrap(),
            journal
        );
    }
}
