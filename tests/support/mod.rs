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
