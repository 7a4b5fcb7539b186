//! `pinnbo predict`: a run's model at points, read from its folder, nothing evaluated.

mod common;

use common::text;

use std::path::{Path, PathBuf};

/// The binary run in `dir`, arguments first (as these tests read best).
fn pinnbo(args: &[&str], dir: &Path) -> std::process::Output {
    common::pinnbo(dir, args)
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("predict-{name}"))
}

const BOWL: &str = "problem \"bowl\"\nvar a in [0, 1], b in [0, 1]\nfield f(a, b) = (a - 0.3)^2 + \
                    (b - 0.6)^2\nfield g(a, b) = a*b\nminimize f\nsubject to cap: g <= 0.5\n\
                    subject to spend: a + b <= 1.5\nbudget 9, init 8\nmethod gp-ei\n";

/// At an evaluated point the exact value is within the model's spread; a known constraint
/// is its formula with no spread; the journal is not touched.
#[test]
fn the_model_at_an_evaluated_point_holds_the_value() {
    let dir = scratch("gp");
    std::fs::write(dir.join("bowl.pde"), BOWL).unwrap();
    let run = pinnbo(&["solve", "bowl.pde", "--out", "run", "-q"], &dir);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let csv = std::fs::read_to_string(dir.join("run/history.csv")).unwrap();
    let first: Vec<f64> = (csv.lines().nth(1).unwrap().split(',').skip(2).take(3))
        .map(|v| v.parse().unwrap())
        .collect();
    let (a, b, value) = (first[0], first[1], first[2]);
    let journal = std::fs::read(dir.join("run/journal.jsonl")).unwrap();
    let at = format!("a={a},b={b}");
    let out = pinnbo(&["predict", "run", "--at", &at, "--json"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let objective = &json["points"][0]["objective"];
    let (mean, std) = (
        objective["mean"].as_f64().unwrap(),
        objective["std"].as_f64().unwrap(),
    );
    assert!(
        (mean - value).abs() <= 3.0 * std + 1e-6,
        "{mean} ± {std} vs {value}"
    );
    let spend = &json["points"][0]["constraints"]["spend"];
    assert_eq!(spend["mean"].as_f64().unwrap(), a + b - 1.5);
    assert_eq!(spend["std"].as_f64().unwrap(), 0.0);
    assert!(
        json["points"][0]["constraints"]["cap"]["std"]
            .as_f64()
            .unwrap()
            >= 0.0
    );
    assert_eq!(
        std::fs::read(dir.join("run/journal.jsonl")).unwrap(),
        journal
    );
    let plain = pinnbo(&["predict", "run", "--at", "a=0.3,b=0.6"], &dir);
    assert!(
        text(&plain.stdout).starts_with("a=0.3,b=0.6: objective "),
        "{}",
        text(&plain.stdout)
    );
    let outside = pinnbo(&["predict", "run", "--at", "a=2,b=0.6"], &dir);
    assert_eq!(outside.status.code(), Some(1));
    assert!(
        text(&outside.stderr).contains("outside"),
        "{}",
        text(&outside.stderr)
    );
}

#[test]
fn a_method_without_a_spread_says_so() {
    let dir = scratch("random");
    std::fs::write(dir.join("bowl.pde"), BOWL.replace("gp-ei", "random")).unwrap();
    let run = pinnbo(&["solve", "bowl.pde", "--out", "run", "-q"], &dir);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = pinnbo(&["predict", "run", "--at", "a=0.3,b=0.6"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: random has no predictive standard deviation to report, or no evaluation \
         succeeded yet\n"
    );
}
