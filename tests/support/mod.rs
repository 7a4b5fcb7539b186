//! What the tests of runs in folders share: a scratch folder with a problem, and the
//! journal's records read back.

// Each test binary uses only some of these helpers.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// A slow command oracle, so that the process can be killed between evaluations.
pub const SLOW: &str =
    "problem \"slow\"\nvar x1 in [0, 1], x2 in [0, 1]\nfield f(x1, x2)\nminimize f\n\
    oracle command \"./slow.sh {x1} {x2}\"\nbudget 10, init 3 sobol\n";
pub const SLOW_SH: &str = "#!/bin/sh\nsleep 0.15\nawk -v a=\"$1\" -v b=\"$2\" 'BEGIN { print (a - 0.3)^2 + (b - 0.6)^2 }'\n";

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh folder holding `problem.pde` (and optional extra files).
pub fn scratch(name: &str, problem: &str, extra: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("problem.pde"), problem).unwrap();
    for (file, content) in extra {
        let path = dir.join(file);
        std::fs::write(&path, content).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    dir
}

/// The journal's evaluation records (the header and the points handed out by `ask` skipped).
pub fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("ask").is_none())
        .collect()
}

pub fn points(dir: &Path) -> Vec<Value> {
    records(dir).iter().map(|r| r["x"].clone()).collect()
}

/// A finished run's `summary.json`.
pub fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// A run with `check none`: `summary.json`'s `pde_checks` keeps the pde at each of its
/// `steps`, and `solve`'s report says so.
pub fn assert_pde_kept_at_every_step(report: &str, checks: &Value, steps: u64) {
    let every =
        serde_json::json!({"steps": steps, "kept": steps, "dropped_by": {}, "last_kept": true});
    assert_eq!(checks, &every);
    let line = format!("physics    the pde kept at every step ({steps})\n");
    assert!(report.contains(&line), "{report}");
}

/// A checked run: each of its `steps` is counted once in `pde_checks`, kept or dropped by
/// some reason, and `solve`'s report has the physics line.
pub fn assert_each_step_decided_once(report: &str, checks: &Value, steps: u64) {
    assert_eq!(checks["steps"], steps, "{checks}");
    let dropped: u64 = (checks["dropped_by"].as_object().unwrap().values())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(
        checks["kept"].as_u64().unwrap() + dropped,
        steps,
        "{checks}"
    );
    assert!(report.contains("physics    the pde kept at "), "{report}");
}
