//! Command oracles that submit through a real Slurm (a single-node cluster started by
//! `tests/slurm/start.sh`): `srun` directly, and `sbatch --wait` through the documented
//! wrapper `tests/slurm/submit.sh`. Where no Slurm answers, the tests say so plainly and
//! pass, unless `PINNBO_REQUIRE_SLURM` is set (CI sets it after starting the cluster).

mod common;
mod support;
use common::pinnbo;
use support::{records, scratch, text};

/// A job can run on this machine's Slurm now; else why not.
fn slurm_answers() -> Result<(), String> {
    let probe = std::process::Command::new("srun")
        .args(["--immediate=10", "--quiet", "true"])
        .output()
        .map_err(|e| format!("srun could not be run: {e}"))?;
    match probe.status.success() {
        true => Ok(()),
        false => Err(format!("srun failed: {}", text(&probe.stderr).trim())),
    }
}

/// Whether to go on: false (after saying why) when Slurm cannot be used and is not required.
fn slurm_or_skip(test: &str) -> bool {
    match slurm_answers() {
        Ok(()) => true,
        Err(why) if std::env::var_os("PINNBO_REQUIRE_SLURM").is_some() => {
            panic!("{test}: Slurm is required here (PINNBO_REQUIRE_SLURM) but {why}")
        }
        Err(why) => {
            eprintln!(
                "{test}: NOT RUN: Slurm could not be used on this machine ({why}); start a \
                 single-node cluster with `sudo tests/slurm/start.sh`"
            );
            false
        }
    }
}

/// Prints (x - 0.3)^2 and logs the Slurm job it ran in.
const MEASURE: &str = "#!/bin/sh\necho \"$SLURM_JOB_ID\" >> jobs.txt\n\
    awk -v a=\"$1\" 'BEGIN { printf \"%.12f\\n\", (a - 0.3)^2 }'\n";

fn problem(command: &str, budget: usize) -> String {
    format!(
        "var x in [0, 1]\nfield f(x)\nminimize f\noracle command \"{command}\" {{ timeout 2 min }}\n\
         budget {budget}, init 3 sobol\nmethod gp-ei\n"
    )
}

/// Every evaluation ran as a job of its own, and its value came back as measured.
fn check_jobs(dir: &std::path::Path, evaluations: usize) {
    let all = records(&dir.join("run"));
    assert_eq!(all.len(), evaluations);
    for r in &all {
        let x = r["x"][0].as_f64().unwrap();
        let value = r["observed"]["objective"].as_f64().unwrap_or(f64::NAN);
        assert!((value - (x - 0.3).powi(2)).abs() < 1e-10, "{r}");
    }
    let jobs = std::fs::read_to_string(dir.join("jobs.txt")).unwrap();
    let mut ids: Vec<&str> = jobs.lines().collect();
    assert!(
        ids.iter().all(|id| !id.is_empty()),
        "every evaluation ran in a Slurm job"
    );
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), evaluations, "one job per evaluation");
}

#[test]
fn a_command_oracle_runs_each_evaluation_through_srun() {
    if !slurm_or_skip("srun") {
        return;
    }
    let command = "srun --quiet --ntasks=1 ./measure.sh {x}";
    let dir = scratch(
        "slurm-srun",
        &problem(command, 6),
        &[("measure.sh", MEASURE)],
    );
    let run = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--parallel",
            "2",
            "--out",
            "run",
            "--quiet",
        ],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    check_jobs(&dir, 6);
}

#[test]
fn a_command_oracle_submits_batch_jobs_through_the_documented_wrapper() {
    if !slurm_or_skip("sbatch") {
        return;
    }
    let wrapper = include_str!("slurm/submit.sh");
    let command = "./submit.sh ./measure.sh {x}";
    let dir = scratch(
        "slurm-sbatch",
        &problem(command, 4),
        &[("measure.sh", MEASURE), ("submit.sh", wrapper)],
    );
    let run = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--out",
            "run",
            "--quiet",
        ],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    check_jobs(&dir, 4);
}

/// A whole bench as a Slurm array job, one run per task (`--only $SLURM_ARRAY_TASK_ID`),
/// then reduced: every run is there and the report counts them all.
#[test]
fn a_bench_runs_as_an_array_job_and_reduces() {
    if !slurm_or_skip("array job") {
        return;
    }
    let quadratic = "problem \"quadratic\"\nvar x in [-2, 3]\nminimize (x - 1)^2\noptimum 0\n\
        budget 6, init 3 sobol\n";
    let dir = scratch("slurm-array", quadratic, &[]);
    let bench = format!(
        "{} bench problem.pde --methods random,gp-ei --seeds 2 --out array --quiet",
        env!("CARGO_BIN_EXE_pinnbo")
    );
    let submitted = std::process::Command::new("sbatch")
        .args([
            "--wait",
            "--quiet",
            "--array=0-3",
            "--output=task-%a.txt",
            "--wrap",
            &format!("{bench} --only $SLURM_ARRAY_TASK_ID"),
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(submitted.status.success(), "{}", text(&submitted.stderr));
    for k in 0..4 {
        let said = std::fs::read_to_string(dir.join(format!("task-{k}.txt"))).unwrap();
        assert!(said.starts_with(&format!("run {k}: quadratic ")), "{said}");
        assert!(said.contains(": done in array/quadratic/"), "{said}");
    }
    let reduce: Vec<&str> = bench.split(' ').skip(1).chain(["--reduce"]).collect();
    let reduced = pinnbo(&dir, &reduce);
    assert!(reduced.status.success(), "{}", text(&reduced.stderr));
    let results = std::fs::read_to_string(dir.join("array/results.csv")).unwrap();
    // A header and 6 evaluations for each of the 4 runs.
    assert_eq!(results.lines().count(), 1 + 4 * 6);
}
