//! End-to-end tests of `pinnbo bench --quick`: the outputs' structure, shared initial designs,
//! the statistics against a hand computation, and resumption of an interrupted benchmark.

mod common;
use common::pinnbo;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const QUADRATIC: &str = "problem \"quadratic\"\nvar x1 in [-2, 3], x2 in [0, 1]\n\
    minimize (x1 - 1)^2 + 10*(x2 - 0.25)^2\noptimum 0\nbudget 30, init 4 sobol\n";

/// Constrained, with the optimum -1 at (-1/sqrt 2, -1/sqrt 2)·1 on the disc's edge.
const DISC: &str = "problem \"disc\"\nvar x in [-1, 1], y in [-1, 1]\nminimize x + y\n\
    subject to inside: x^2 + y^2 <= 0.5\noptimum -1\nbudget 30, init 4 sobol\n";

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("quadratic.pde"), QUADRATIC).unwrap();
    std::fs::write(dir.join("disc.pde"), DISC).unwrap();
    dir
}

/// A CSV file as rows of named cells.
fn table(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|row| {
            let row = row.unwrap();
            assert_eq!(row.len(), header.len(), "every row has the header's cells");
            header
                .iter()
                .zip(row.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn number(row: &BTreeMap<String, String>, key: &str) -> f64 {
    row[key]
        .parse()
        .unwrap_or_else(|_| panic!("{key} = {:?} is not a number", row[key]))
}

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0),
    )
}

/// `P(T > t)` for Student's t with `df` degrees of freedom, by quadrature: with
/// `x = sqrt(df) tan(a)` the density is proportional to `cos(a)^(df - 1)` on (-pi/2, pi/2).
fn t_upper_tail(t: f64, df: f64) -> f64 {
    let simpson = |lo: f64, hi: f64| {
        let n = 20_000;
        let h = (hi - lo) / n as f64;
        let f = |a: f64| a.cos().max(0.0).powf(df - 1.0);
        let inner: f64 = (1..n)
            .map(|i| f(lo + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
            .sum();
        (f(lo) + inner + f(hi)) * h / 3.0
    };
    let half = std::f64::consts::FRAC_PI_2;
    simpson((t / df.sqrt()).atan(), half) / simpson(-half, half)
}

#[test]
fn quick_bench_writes_every_output_and_its_statistics_match_a_hand_computation() {
    let dir = scratch("bench-quick");
    let args = [
        "bench",
        "quadratic.pde",
        "disc.pde",
        "--methods",
        "gp-ei,random",
        "--quick",
        "--out",
        "out",
        "--quiet",
    ];
    let out = pinnbo(&dir, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let root = dir.join("out");
    for file in [
        "results.csv",
        "stats.csv",
        "report.md",
        "report.json",
        "quadratic.png",
        "disc.png",
    ] {
        assert!(root.join(file).is_file(), "{file} is missing");
    }
    // --quick: 3 seeds, the initial design (4) plus 5 steps.
    let rows = table(&root.join("results.csv"));
    assert_eq!(rows.len(), 2 * 2 * 3 * 9);
    // Neither method checks a pde: no step has a verdict, and the report says so.
    assert!(rows.iter().all(|r| r["pde_kept"].is_empty()));
    let report = std::fs::read_to_string(root.join("report.md")).unwrap();
    assert!(
        report.contains("| left out | pde kept at (of the steps) |"),
        "{report}"
    );
    for problem in ["quadratic", "disc"] {
        for method in ["gp-ei", "random"] {
            for seed in 0..3 {
                let run = root.join(problem).join(method).join(format!("seed{seed}"));
                for file in ["journal.jsonl", "summary.json", "history.csv"] {
                    assert!(run.join(file).is_file(), "{} lacks {file}", run.display());
                }
            }
        }
    }
    // The same initial design (and so the same values) for every method of a seed.
    let curve = |problem: &str, method: &str, seed: &str, key: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| r["problem"] == problem && r["method"] == method && r["seed"] == seed)
            .map(|r| r[key].clone())
            .collect()
    };
    for seed in ["0", "1", "2"] {
        let a = curve("quadratic", "gp-ei", seed, "best_so_far");
        let b = curve("quadratic", "random", seed, "best_so_far");
        assert_eq!(a[..4], b[..4], "seed {seed}: initial designs differ");
    }
    // Unconstrained: regret is best-so-far minus the optimum, never increasing.
    for r in rows.iter().filter(|r| r["problem"] == "quadratic") {
        assert!((number(r, "regret") - number(r, "best_so_far")).abs() < 1e-12);
    }
    // Constrained: regret plus violation is defined from the first evaluation on and never
    // increases.
    for seed in ["0", "1", "2"] {
        let rpv: Vec<f64> = curve("disc", "random", seed, "regret_plus_violation")
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(rpv.windows(2).all(|w| w[1] <= w[0]), "{rpv:?}");
        assert!(rpv.iter().all(|v| *v >= 0.0));
    }

    // The tests by hand: final-budget metric per (problem, method) over the seeds.
    let finals = |problem: &str, method: &str, key: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r["problem"] == problem && r["method"] == method && r["evaluation"] == "9")
            .map(|r| number(r, key))
            .collect()
    };
    let stats = table(&root.join("stats.csv"));
    assert_eq!(stats.len(), 2, "one test per problem: random against gp-ei");
    let mut p_values = Vec::new();
    for (problem, key) in [("quadratic", "regret"), ("disc", "regret_plus_violation")] {
        let (b, a) = (
            finals(problem, "random", key),
            finals(problem, "gp-ei", key),
        );
        assert_eq!((b.len(), a.len()), (3, 3));
        let ((mb, vb), (ma, va)) = (mean_var(&b), mean_var(&a));
        let (sb, sa) = (vb / 3.0, va / 3.0);
        let t = (mb - ma) / (sb + sa).sqrt();
        let df = (sb + sa).powi(2) / (sb * sb / 2.0 + sa * sa / 2.0);
        let p = t_upper_tail(t, df);
        let row = stats.iter().find(|r| r["problem"] == problem).unwrap();
        assert_eq!(
            (row["baseline"].as_str(), row["against"].as_str()),
            ("random", "gp-ei")
        );
        assert!((number(row, "baseline_mean") - mb).abs() <= 1e-12 * mb.abs().max(1.0));
        assert!(
            (number(row, "t") - t).abs() < 1e-9 * t.abs().max(1.0),
            "{row:?} t {t}"
        );
        assert!(
            (number(row, "df") - df).abs() < 1e-9 * df,
            "{row:?} df {df}"
        );
        assert!((number(row, "p_value") - p).abs() < 1e-6, "{row:?} p {p}");
        p_values.push((problem, p));
    }
    // Benjamini–Hochberg with two tests: q of the larger p is p, of the smaller min(2p, larger).
    p_values.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (small, large) = (p_values[0], p_values[1]);
    let q_small = (2.0 * small.1).min(large.1);
    for ((problem, _), q) in [(small, q_small), (large, large.1)] {
        let row = stats.iter().find(|r| r["problem"] == problem).unwrap();
        assert!((number(row, "q_value") - q).abs() < 1e-6, "{row:?} q {q}");
        assert_eq!(row["rejected"], (q <= 0.05).to_string());
    }
    // The signed-rank test on each seed's pair, by listing the sign patterns.
    for (problem, key) in [("quadratic", "regret"), ("disc", "regret_plus_violation")] {
        let at = |method: &str, seed: usize| -> f64 {
            let row = rows.iter().find(|r| {
                r["problem"] == problem
                    && r["method"] == method
                    && r["seed"] == seed.to_string()
                    && r["evaluation"] == "9"
            });
            number(row.unwrap(), key)
        };
        let differences: Vec<f64> = (0..3)
            .map(|seed| at("random", seed) - at("gp-ei", seed))
            .filter(|d| *d != 0.0)
            .collect();
        let row = stats.iter().find(|r| r["problem"] == problem).unwrap();
        match signed_rank_by_enumeration(&differences) {
            Some((w_plus, p)) => {
                assert_eq!(row["pairs"], differences.len().to_string());
                assert!((number(row, "w_plus") - w_plus).abs() < 1e-12, "{row:?}");
                assert!(
                    (number(row, "paired_p_value") - p).abs() < 1e-12,
                    "{row:?} p {p}"
                );
            }
            None => assert!(row["paired_p_value"].is_empty(), "{row:?}"),
        }
    }
}

/// The signed-rank statistic and its one-sided p by listing all 2^n sign patterns (ranks of
/// |d|, ties at their average); None where no pair differs.
fn signed_rank_by_enumeration(differences: &[f64]) -> Option<(f64, f64)> {
    let n = differences.len();
    if n < 1 {
        return None;
    }
    let rank = |d: f64| {
        let below = differences.iter().filter(|e| e.abs() < d.abs()).count() as f64;
        let tied = differences.iter().filter(|e| e.abs() == d.abs()).count() as f64;
        below + (tied + 1.0) / 2.0
    };
    let ranks: Vec<f64> = differences.iter().map(|d| rank(*d)).collect();
    let w_plus: f64 = (differences.iter().zip(&ranks))
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, r)| r)
        .sum();
    let at_least = (0..1u32 << n)
        .filter(|mask| {
            let sum: f64 = (0..n)
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| ranks[i])
                .sum();
            sum >= w_plus - 1e-9
        })
        .count();
    Some((w_plus, at_least as f64 / (1u32 << n) as f64))
}

#[test]
fn an_interrupted_bench_continues_to_the_same_results() {
    let dir = scratch("bench-resume");
    let args = [
        "bench",
        "quadratic.pde",
        "--methods",
        "gp-ei,random",
        "--seeds",
        "2",
        "--budget",
        "8",
        "--out",
        "out",
        "--quiet",
    ];
    // Two runs at a time with one thread each, then the resumed one alone with every core:
    // results do not depend on the thread count.
    let first = pinnbo(&dir, &[&args[..], &["--jobs", "2"]].concat());
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let without_time = |path: &Path| -> Vec<String> {
        table(path)
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.remove("seconds");
                format!("{r:?}")
            })
            .collect()
    };
    let complete = without_time(&dir.join("out/results.csv"));

    // Cut one run back to its header and three evaluations, as a kill would leave it.
    let journal = dir.join("out/quadratic/gp-ei/seed1/journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(&journal, kept.join("\n") + "\n").unwrap();
    let untouched = dir.join("out/quadratic/random/seed0/journal.jsonl");
    let before = std::fs::read_to_string(&untouched).unwrap();

    // While another process holds the folder, a second bench is refused and changes nothing.
    let holder = std::fs::File::open(dir.join("out/bench.lock")).unwrap();
    holder.lock().unwrap();
    let refused = pinnbo(&dir, &args);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "error: out/bench.lock is locked: another process is writing this benchmark; \
         wait for it to finish or stop it\n"
    );
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        4
    );
    drop(holder);

    let again = pinnbo(&dir, &[&args[..], &["--jobs", "1"]].concat());
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(without_time(&dir.join("out/results.csv")), complete);
    assert_eq!(
        std::fs::read_to_string(&untouched).unwrap(),
        before,
        "a finished run is reused, not rerun"
    );
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        9
    );
}

#[test]
fn bench_refuses_unknown_methods_and_a_foreign_reference() {
    let dir = scratch("bench-usage");
    let out = pinnbo(&dir, &["bench", "quadratic.pde", "--methods", "gp-ei,nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown method `nope`"));
    let out = pinnbo(
        &dir,
        &[
            "bench",
            "quadratic.pde",
            "--methods",
            "gp-ei",
            "--against",
            "random",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--against random is not one of --methods")
    );
    // Nothing that applies: an error, not an empty report.
    let out = pinnbo(
        &dir,
        &["bench", "quadratic.pde", "--methods", "pinn-bo", "--quick"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("error: none of --methods applies to any of the problems; nothing was run"));
    // A method listed twice would count each of its runs twice.
    let out = pinnbo(
        &dir,
        &["bench", "quadratic.pde", "--methods", "random,random"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("error: `random` is listed twice in --methods"));
    // A command problem without --allow-exec: refused before anything runs.
    std::fs::write(
        dir.join("command.pde"),
        "var x in [0, 1]\nfield f(x)\nminimize f\noracle command \"echo {x}\"\n",
    )
    .unwrap();
    let out = pinnbo(
        &dir,
        &["bench", "command.pde", "--methods", "random", "--quick"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: command.pde runs an external command; pass --allow-exec to let the benchmark \
         run it\n"
    );
    assert!(!dir.join("bench/command").exists(), "nothing was run");
    // A seed count is a list of runs made before any starts: bounded.
    let out = pinnbo(&dir, &["bench", "quadratic.pde", "--seeds", "99999999999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "invalid value '99999999999' for '--seeds <SEEDS>': 99999999999 is not in 1..=10000"
    ));
}

/// Copies a folder tree (a task's output, as a cluster's nodes would hand it back).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A bench spread as independent runs (`--only K`, each writing its own folder, as an
/// array job's tasks on different nodes), copied together and reduced (`--reduce`), reports
/// what the same bench run whole reports; a missing run is named with the task to make it.
#[test]
fn a_bench_made_of_separate_runs_reduces_to_the_whole_benchmark() {
    let dir = scratch("bench-reduce");
    let plan = [
        "bench",
        "quadratic.pde",
        "--methods",
        "random,gp-ei",
        "--seeds",
        "2",
        "--budget",
        "7",
        "--quiet",
    ];
    let with = |extra: &[&str]| pinnbo(&dir, &[&plan[..], extra].concat());
    let whole = with(&["--out", "whole"]);
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );

    let list = with(&["--list"]);
    let listed = String::from_utf8_lossy(&list.stdout).into_owned();
    assert_eq!(
        listed,
        "0\tquadratic\trandom\t0\n1\tquadratic\trandom\t1\n2\tquadratic\tgp-ei\t0\n\
         3\tquadratic\tgp-ei\t1\n"
    );
    for k in 0..4 {
        let task = format!("task{k}");
        let made = with(&["--out", &task, "--only", &k.to_string()]);
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        assert!(
            !dir.join(&task).join("report.md").exists(),
            "a task writes no report"
        );
    }
    // Three tasks' folders copied together: the fourth is missing.
    for k in 0..3 {
        copy_tree(&dir.join(format!("task{k}")), &dir.join("merged"));
    }
    let partial = with(&["--out", "merged", "--reduce"]);
    assert_eq!(partial.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&partial.stderr);
    assert!(
        stderr.contains("missing: run 3 (not run: ")
            && stderr.contains("seed1 holds no journal); make it with --only 3"),
        "{stderr}"
    );
    copy_tree(&dir.join("task3"), &dir.join("merged"));
    let reduced = with(&["--out", "merged", "--reduce"]);
    assert!(
        reduced.status.success(),
        "{}",
        String::from_utf8_lossy(&reduced.stderr)
    );
    // Everything but the clock agrees.
    let timeless = |path: &Path| {
        let mut rows = table(path);
        rows.iter_mut().for_each(|r| {
            r.remove("seconds");
        });
        rows
    };
    assert_eq!(
        timeless(&dir.join("merged/results.csv")),
        timeless(&dir.join("whole/results.csv"))
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("merged/stats.csv")).unwrap(),
        std::fs::read_to_string(dir.join("whole/stats.csv")).unwrap()
    );
}
