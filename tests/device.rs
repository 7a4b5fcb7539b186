//! `device` and `--device`: where the methods that train networks train them. CI's build has
//! no CUDA; a build with `--features cuda` on a machine without a GPU (the one that builds
//! it) refuses for that reason instead. Both refusals come before anything is written.

mod common;

use common::text;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The binary run in `dir`, arguments first (as these tests read best).
fn pinnbo(args: &[&str], dir: &Path) -> std::process::Output {
    common::pinnbo(dir, args)
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("device-{name}"))
}

/// A small neural-greedy problem; `device` is written into its method block when given.
fn problem(dir: &Path, device: Option<&str>) -> PathBuf {
    let setting = device.map_or(String::new(), |d| format!(", device {d}"));
    let path = dir.join("bowl.pde");
    let text = format!(
        "problem \"bowl\"\nvar x in [0, 1], y in [0, 1]\nfield f(x, y) = (x - 0.3)^2 + (y - 0.6)^2\n\
         minimize f\nmethod neural-greedy {{ width 100, epochs 200{setting} }}\nbudget 7, init 5\n"
    );
    std::fs::write(&path, text).expect("problem file");
    path
}

const NOT_COMPILED: &str = "error: this pinnbo was built without CUDA, so `device cuda` cannot \
                            run; build one with `bash scripts/build-cuda.sh` (docs/gpu.md), or \
                            train on the CPU (`device cpu`)\n";

/// The refusal this build gives for `device cuda` on a machine without a GPU.
fn assert_cuda_refused(stderr: &str) {
    if cfg!(feature = "cuda") {
        assert!(stderr.contains("no CUDA GPU answers ("), "{stderr}");
    } else {
        assert_eq!(stderr, NOT_COMPILED);
    }
}

#[test]
fn the_version_says_whether_cuda_is_compiled_in() {
    let out = pinnbo(&["--version"], &root());
    let expected = if cfg!(feature = "cuda") {
        "(CUDA compiled in)"
    } else {
        "(CPU only: built without CUDA)"
    };
    assert!(
        text(&out.stdout).trim_end().ends_with(expected),
        "{}",
        text(&out.stdout)
    );
    let methods = text(&pinnbo(&["methods"], &root()).stdout);
    assert!(methods.contains("\nCUDA: "), "{methods}");
}

#[test]
fn cuda_is_refused_before_anything_is_written_where_it_cannot_run() {
    let dir = scratch("refused");
    let file = problem(&dir, None);
    let file = file.to_str().unwrap();
    let out = pinnbo(&["solve", file, "--device", "cuda", "--out", "run"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert_cuda_refused(&text(&out.stderr));
    assert!(!dir.join("run").exists(), "a refused run writes nothing");
    let out = pinnbo(
        &[
            "bench",
            file,
            "--methods",
            "neural-greedy",
            "--device",
            "cuda",
            "--quick",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_cuda_refused(&text(&out.stderr));
    assert!(!dir.join("bench").exists());
}

#[test]
fn a_files_device_is_checked_where_it_is_written() {
    let dir = scratch("file");
    problem(&dir, Some("cuda"));
    let out = pinnbo(&["check", "bowl.pde"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("pde::method-unfit"), "{stderr}");
    assert!(stderr.contains("[bowl.pde:5:8]"), "{stderr}");
}

#[test]
fn a_device_for_methods_that_train_no_network_is_refused() {
    let dir = scratch("no-network");
    let file = problem(&dir, None);
    let file = file.to_str().unwrap();
    let out = pinnbo(
        &["solve", file, "--method", "gp-ei", "--device", "cpu"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: gp-ei trains no network, so it runs on the CPU whatever the device; a device \
         applies to pinn-bo, neural-bo, neural-cbo, neural-greedy\n"
    );
    let out = pinnbo(
        &[
            "bench",
            file,
            "--methods",
            "gp-ei,random",
            "--device",
            "cpu",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: --device applies to the methods that train networks, and none of gp-ei, \
         random does\n"
    );
}

/// `--device cpu` and `device cpu` name the default: the same run, value for value.
#[test]
fn the_cpu_device_is_the_default_run() {
    let dir = scratch("cpu");
    let plain = problem(&dir, None);
    // The points and values, without the timings.
    let history = |out: &str| {
        let csv = std::fs::read_to_string(dir.join(out).join("history.csv")).unwrap();
        let rows = csv
            .lines()
            .map(|l| l.split(',').take(5).collect::<Vec<_>>().join(","));
        rows.collect::<Vec<_>>()
    };
    for (out, extra) in [("plain", None), ("flag", Some("cpu"))] {
        let mut args = vec!["solve", plain.to_str().unwrap(), "--out", out, "-q"];
        args.extend(extra.map(|d| ["--device", d]).iter().flatten());
        let run = pinnbo(&args, &dir);
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    }
    let written = problem(&dir, Some("cpu"));
    let run = pinnbo(
        &["solve", written.to_str().unwrap(), "--out", "file", "-q"],
        &dir,
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(history("plain"), history("flag"));
    assert_eq!(history("plain"), history("file"));
}
