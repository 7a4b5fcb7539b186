//! End-to-end tests of the `pinnbo` binary: exit codes, output and error messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pinnbo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("the pinnbo binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn every_shipped_problem_checks_clean() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("problems"))
        .expect("problems/")
        .map(|e| {
            format!(
                "problems/{}",
                e.expect("entry").file_name().to_string_lossy()
            )
        })
        .filter(|f| f.ends_with(".pde"))
        .collect();
    files.sort();
    assert!(files.len() >= 21);
    let args: Vec<&str> = std::iter::once("check")
        .chain(files.iter().map(String::as_str))
        .collect();
    let out = pinnbo(&args);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("ok: "))
            .count(),
        files.len()
    );
    assert!(
        out.stderr.is_empty(),
        "no warnings expected: {}",
        text(&out.stderr)
    );
}

#[test]
fn invalid_file_exits_1_with_located_diagnostics() {
    let out = pinnbo(&[
        "check",
        "tests/diagnostics/09-unknown-operator.pde",
        "problems/beam.pde",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("[tests/diagnostics/09-unknown-operator.pde:3:5]"),
        "{err}"
    );
    assert!(err.contains("did you mean `laplacian`?"), "{err}");
    assert!(err.contains("1 of 2 files failed"), "{err}");
    assert!(text(&out.stdout).contains("ok: problems/beam.pde"));
}

#[test]
fn unreadable_file_exits_1() {
    let out = pinnbo(&["check", "problems/no-such-file.pde"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read problems/no-such-file.pde"));
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(pinnbo(&[]).status.code(), Some(2));
    assert_eq!(pinnbo(&["check"]).status.code(), Some(2));
    assert_eq!(pinnbo(&["frobnicate"]).status.code(), Some(2));
    for args in [&["--help"][..], &["check", "--help"], &["eval", "--help"]] {
        let out = pinnbo(args);
        assert_eq!(out.status.code(), Some(0));
        assert!(text(&out.stdout).contains("Usage: pinnbo"));
    }
}

/// Completions and manual pages come from the parser's own declarations: a shell script
/// that knows `solve`'s flags, and one roff page per command.
#[test]
fn completions_and_manual_pages_describe_the_commands() {
    let out = pinnbo(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0));
    let script = text(&out.stdout);
    assert!(
        script.contains("--allow-exec") && script.contains("solve"),
        "{script}"
    );
    assert_eq!(pinnbo(&["completions", "tcsh"]).status.code(), Some(2));

    let dir = std::env::temp_dir().join(format!("pinnbo-man-{}", std::process::id()));
    let out = pinnbo(&["man", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(dir.join("pinnbo-solve.1")).expect("pinnbo-solve.1");
    assert!(page.contains(".TH") && page.contains("resume"), "{page}");
    assert!(dir.join("pinnbo.1").exists() && dir.join("pinnbo-bench.1").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// `pinnbo methods` prints the declarations: the list, and one method's settings with
/// their defaults.
#[test]
fn methods_lists_the_methods_and_their_settings() {
    let out = pinnbo(&["methods"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).starts_with("physics-gp "),
        "{}",
        text(&out.stdout)
    );
    let out = pinnbo(&["methods", "gp-ucb"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  restarts (an integer of at least 1; default 3)"),
        "{stdout}"
    );
    assert_eq!(pinnbo(&["methods", "gp-eii"]).status.code(), Some(2));
}

#[test]
fn eval_reports_objective_constraints_and_pde_terms() {
    let out = pinnbo(&["eval", "problems/rastrigin-20.pde", "--at", "x=0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("objective  0 (minimize)"), "{stdout}");
    assert!(
        stdout.contains("pde 1 (line 10): right-hand side 0, residual of the closed form 0e0"),
        "{stdout}"
    );

    let out = pinnbo(&[
        "eval",
        "problems/branin-constrained.pde",
        "--at",
        "x1=3.141592653589793,x2=2.275",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!((v["objective"].as_f64().unwrap() - 0.397887357729738).abs() < 1e-12);
    assert_eq!(v["constraints"][0]["name"], "disk");
    assert_eq!(v["constraints"][0]["satisfied"], true);
}

/// A field without a closed form is evaluated through the file's oracle: on heat1's edge
/// x = 0 the FDM field is the boundary data, T(0, y) = 10 cos y + y e^√(y² + sin y); a
/// command runs only with --allow-exec and its printed value is reported.
#[test]
fn eval_goes_through_the_oracle_when_there_is_no_closed_form() {
    let out = pinnbo(&["eval", "problems/heat1.pde", "--at", "x=0,y=1", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let exact = 10.0 * 1f64.cos() + (1.0 + 1f64.sin()).sqrt().exp();
    let got = v["objective"].as_f64().unwrap();
    // Linear interpolation between boundary nodes 2π/256 apart.
    assert!((got - exact).abs() < 1e-3 * exact, "{got} vs {exact}");

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-command");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("p.pde"),
        "var x in [0, 1]\nfield f(x)\nminimize f\noracle command \"echo 0.125\"\n",
    )
    .unwrap();
    let file = dir.join("p.pde").display().to_string();
    let refused = pinnbo(&["eval", &file, "--at", "x=0.3"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "error: this problem runs an external command; pass --allow-exec (Python: allow_exec=True) \
         to let it\n"
    );
    let ran = pinnbo(&["eval", &file, "--at", "x=0.3", "--allow-exec"]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    assert!(text(&ran.stdout).contains("objective  0.125 (minimize)"));
    // No command runs at a point that is not one.
    for at in ["x=1e999", "x=nan"] {
        let refused = pinnbo(&["eval", &file, "--at", at, "--allow-exec"]);
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{at}: {}",
            text(&refused.stderr)
        );
        assert!(text(&refused.stdout).is_empty(), "{at}");
        assert!(
            text(&refused.stderr).contains("is not a finite number"),
            "{at}"
        );
    }
}

#[test]
fn eval_rejects_bad_points_clearly() {
    let out = pinnbo(&["eval", "problems/simionescu.pde", "--at", "x=0.3,y="]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("invalid --at: expected a number or a list `[a, b, ...]`"),
        "{err}"
    );
    assert!(err.contains("[--at:1:8]"), "{err}");

    let out = pinnbo(&["eval", "problems/simionescu.pde", "--at", "x=0.3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--at gives no value for y"));

    let out = pinnbo(&[
        "eval",
        "problems/gas-transmission.pde",
        "--at",
        "x=1,x2=1,x3=20,x4=1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`x` is not a variable of gas-transmission"));
}

#[test]
fn eval_reports_domain_errors_as_failures() {
    // x1 < 0 is outside the bounds; sqrt(x1) is then NaN: reported, exit 1, no panic.
    let out = pinnbo(&[
        "eval",
        "problems/gas-transmission.pde",
        "--at",
        "x1=-4,x2=1,x3=20,x4=1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("`x1` = -4 is outside its bounds [20, 50]"),
        "{err}"
    );
    assert!(err.contains("not finite"), "{err}");
}

/// A fresh scratch directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn fdm_solves_the_beam_reports_its_minimum_and_writes_csv_and_png() {
    let dir = scratch("fdm-beam");
    let out = pinnbo(&[
        "fdm",
        "problems/beam.pde",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["model"], "beam");
    let x_min = report["min"]["at"]["x"].as_f64().unwrap();
    assert!((x_min - 0.883_697_13).abs() < 1e-3, "minimum at {x_min}");
    assert!((report["min"]["value"].as_f64().unwrap() + 5.942_396).abs() < 1e-4);

    let csv = std::fs::read_to_string(dir.join("w.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("x,w"));
    assert_eq!(lines.count(), 65_537, "one row per grid node");
    let png = std::fs::read(dir.join("w.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn fdm_draws_a_heat_map_as_svg_and_prints_the_extremes() {
    let dir = scratch("fdm-heat2");
    let out = pinnbo(&[
        "fdm",
        "problems/heat2.pde",
        "--format",
        "svg",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("heat2: SteadyHeat on a 257 x 257 grid"),
        "{stdout}"
    );
    assert!(stdout.contains("max T = "), "{stdout}");
    let svg = std::fs::read_to_string(dir.join("T.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("<rect"),
        "an SVG with cells"
    );
}

#[test]
fn fdm_refuses_a_problem_without_an_fdm_oracle() {
    let out = pinnbo(&["fdm", "problems/branin-constrained.pde"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("has no `oracle fdm { ... }` block"),
        "{stderr}"
    );
    assert!(stderr.contains("branin-constrained.pde:"), "{stderr}");
}

#[test]
fn a_file_with_thousands_of_errors_shows_the_first_hundred_and_counts_the_rest() {
    let dir = scratch("check-many-errors");
    std::fs::create_dir_all(&dir).unwrap();
    let mut file = String::from("var x in [0, 1]\n");
    for i in 0..5000 {
        file.push_str(&format!("minimize q{i}\n"));
    }
    let path = dir.join("many.pde");
    std::fs::write(&path, file).unwrap();
    let out = pinnbo(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.matches("pde::").count(), 100, "{err}");
    assert!(err.contains("many.pde:101:10]") && !err.contains("many.pde:102:10]"));
    assert!(
        err.contains("… and 4900 more not shown (the first 100 are, errors first)"),
        "{err}"
    );
    assert!(err.contains("error: 5000 error(s) in"), "{err}");
}

/// Past the cap the errors come first: a thousand unused params (each warned about) do not
/// hide the one error at the end of the file (issue 53, item 19).
#[test]
fn an_error_after_a_thousand_warnings_is_shown() {
    let dir = scratch("check-warnings-then-error");
    std::fs::create_dir_all(&dir).unwrap();
    let mut file = String::from(
        "var x in [0, 1]
field u(x)
pde dxx(u) = 0
",
    );
    for i in 0..1000 {
        file.push_str(&format!(
            "param k{i} in [1, 2]
"
        ));
    }
    file.push_str(
        "minimize u + nothing
oracle external
",
    );
    let path = dir.join("warned.pde");
    std::fs::write(&path, file).unwrap();
    let out = pinnbo(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("pde::unknown-name"), "{err}");
    assert!(err.contains("warned.pde:1004:14]"), "{err}");
}

/// A setting its other settings leave without effect is warned about, at its line and column
/// and naming the other setting, by `check` and by `solve`, which still runs.
#[test]
fn a_setting_without_effect_is_warned_about_by_check_and_solve() {
    let dir = scratch("without-effect");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("beta.pde");
    std::fs::write(
        &file,
        "var x in [0, 1]\nfield u(x) = (x - 0.3)^2\npde dxx(u) = 2\nminimize u\nbudget 6\n\
         method physics-gp { beta 2 }\n",
    )
    .unwrap();
    let path = file.to_string_lossy().into_owned();
    let out_dir = dir.join("run").to_string_lossy().into_owned();
    for args in [
        vec!["check", path.as_str()],
        vec!["solve", path.as_str(), "--out", out_dir.as_str(), "--quiet"],
    ] {
        let out = pinnbo(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("`beta` has no effect with `criterion ei`")
                && stderr.contains("beta.pde:6:21"),
            "{args:?}: {stderr}"
        );
    }
}

/// `solve --out` into a folder holding the user's own files (and no run) is refused before
/// anything is written: their history.csv and summary.json stay as they were (issue 53,
/// item 7).
#[test]
fn a_folder_of_the_users_own_files_is_not_taken_over() {
    let dir = scratch("solve-into-own-folder");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("history.csv"), "mine\n").unwrap();
    std::fs::write(dir.join("summary.json"), "{\"mine\": 1}\n").unwrap();
    let problem = format!(
        "{}/../../problems/branin-constrained.pde",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = pinnbo(&[
        "solve",
        &problem,
        "--out",
        dir.to_str().unwrap(),
        "--budget",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("is not empty and holds no pinnbo run"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("history.csv")).unwrap(),
        "mine\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("summary.json")).unwrap(),
        "{\"mine\": 1}\n"
    );
    assert!(!dir.join("journal.jsonl").exists());
}

/// An endless file is read only up to a bound, then refused with it: `check /dev/zero` and
/// `--import /dev/zero` end at once with the reason (issue 53, item 10).
#[test]
fn an_endless_file_is_refused_at_a_bound() {
    let out = pinnbo(&["check", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("larger than 16 MiB, more than pinnbo reads"),
        "{err}"
    );
    let dir = scratch("import-endless");
    let problem = format!(
        "{}/../../problems/branin-constrained.pde",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = pinnbo(&[
        "solve",
        &problem,
        "--import",
        "/dev/zero",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(err.contains("/dev/zero: larger than 256 MiB"), "{err}");
    assert!(!dir.join("journal.jsonl").exists());
}

/// `check` says what `solve` will say about the file's own method: pinn-bo with an integer
/// variable, physics-gp with a log-scale variable of its field, neural-bo with two
/// objectives are refused at the `method` line (issue 53, item 17).
#[test]
fn check_refuses_a_method_that_solve_would_refuse() {
    let dir = scratch("check-method-unfit");
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "var x in [0, 1], n in 1..4\nfield u(x, n)\npde dxx(u) = 0\nminimize u\noracle external\nmethod pinn-bo\n",
            "`n` takes integer values",
        ),
        (
            "var x in [0.1, 1] log\nfield u(x)\npde dxx(u) = 0\nminimize u\noracle external\nmethod physics-gp\n",
            "`x` is on a log scale",
        ),
        (
            "var x in [0, 1]\nminimize a: x\nminimize b: 1 - x\nmethod neural-bo\n",
            "optimizes one objective and this problem has 2",
        ),
    ];
    for (k, (file, why)) in cases.iter().enumerate() {
        let path = dir.join(format!("m{k}.pde"));
        std::fs::write(&path, file).unwrap();
        let out = pinnbo(&["check", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr).replace("\n  │ ", " ");
        assert!(
            err.contains("pde::method-unfit") && err.contains(why),
            "{err}"
        );
        let line = file.lines().count();
        assert!(err.contains(&format!("m{k}.pde:{line}:8]")), "{err}");
    }
}
