//! Property tests of the front end on random, mutated and generated `.pde` inputs: it never
//! panics, every failure comes back as diagnostics whose spans lie on the input's character
//! boundaries, and no input takes more than [`CASE_TIME`] or [`MEMORY_CAP`] (a blow-up fails
//! the test, not the machine). Generated problems vary what a short file can make expensive:
//! settings and their values, sizes, derivative orders and chains of function definitions.
//! `PROPTEST_CASES` scales the number of inputs (docs/results/measurements.md records a large run).

use pinnbo_dsl::{compile, Source, Style};
use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// The longest one input may take to compile (a debug build on a slow machine).
const CASE_TIME: Duration = Duration::from_secs(30);
/// Live heap of the whole test process: an allocation past it fails, which aborts the test
/// with "memory allocation of N bytes failed" instead of driving the machine into swap.
const MEMORY_CAP: usize = 2 << 30;

#[global_allocator]
static ALLOCATOR: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, MEMORY_CAP);

const TOKENS: &[&str] = &[
    "var",
    "coord",
    "sensors",
    "grid(0, 1, 3)",
    "integral(u, x)",
    "maximum",
    "(x, y) = (0.1, 0.2)",
    "field",
    "fn",
    "const",
    "param",
    "log",
    "pde",
    "minimize",
    "maximize",
    "subject to",
    "oracle",
    "fdm",
    "command",
    "noise",
    "budget",
    "init",
    "seed",
    "method",
    "optimum",
    "at",
    "in",
    "x",
    "y",
    "u",
    "w",
    "x[1]",
    "x[i]",
    "i",
    "sum",
    "d",
    "dxx",
    "grad",
    "div",
    "laplacian",
    "dot",
    "sin",
    "exp",
    "pi",
    "e",
    "0",
    "1",
    "2.5",
    "1e-3",
    "1e999",
    "5%",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    "=",
    "<=",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "^",
    "**",
    "..",
    ":",
    "\"",
    "\"./sim {x}\"",
    "#",
    "\n",
    " ",
    "pinn-bo",
    "neural-bo",
    "grid 9 x 9",
    "points 9",
    "10 min",
    "of range",
    "variance",
    "é",
    "∑",
];

fn shipped_problems() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../problems");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .expect("problems/")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect();
    texts.sort();
    texts
}

/// 300 inputs per property by default; `PROPTEST_CASES` raises it for long runs.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// Compiles (within [`CASE_TIME`]) and checks the invariants every outcome must satisfy.
fn assert_well_behaved(text: &str) {
    let source = Source::new("fuzz.pde", text.to_string());
    let (send, receive) = mpsc::channel();
    let compiling = source.clone();
    std::thread::spawn(move || {
        let _ = send.send(compile(&compiling).err());
    });
    let outcome = match receive.recv_timeout(CASE_TIME) {
        Ok(outcome) => outcome,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("compiling took over {CASE_TIME:?}:\n{text}")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the compiler panicked"),
    };
    if let Some(failed) = outcome {
        assert!(
            failed.error_count() > 0,
            "a failure carries at least one error"
        );
        for d in &failed.diagnostics {
            for span in std::iter::once(d.span).chain(d.related.iter().map(|(s, _)| *s)) {
                assert!(
                    span.start <= span.end && span.end <= text.len(),
                    "span {span:?} outside input"
                );
                assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            }
            assert!(!d.message.is_empty());
        }
        let rendered = failed.render(Style::Plain);
        assert!(rendered.contains("fuzz.pde"), "diagnostics name the file");
    }
}

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|t| t.join(" "))
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, token: &'static str },
    Swap { a: usize, b: usize },
    DuplicateLine { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..12usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), prop::sample::select(TOKENS))
            .prop_map(|(at, token)| Mutation::Insert { at, token }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap { a, b }),
        any::<usize>().prop_map(|at| Mutation::DuplicateLine { at }),
    ]
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, m: &Mutation) -> String {
    let n = text.len().max(1);
    match m {
        Mutation::Delete { at, len } => {
            let a = floor_boundary(text, at % n);
            let b = floor_boundary(text, a + len);
            format!("{}{}", &text[..a], &text[b..])
        }
        Mutation::Insert { at, token } => {
            let a = floor_boundary(text, at % n);
            format!("{}{token}{}", &text[..a], &text[a..])
        }
        Mutation::Swap { a, b } => {
            let mut chars: Vec<char> = text.chars().collect();
            if !chars.is_empty() {
                let len = chars.len();
                chars.swap(a % len, b % len);
            }
            chars.into_iter().collect()
        }
        Mutation::DuplicateLine { at } => {
            let lines: Vec<&str> = text.lines().collect();
            if lines.is_empty() {
                return text.to_string();
            }
            let k = at % lines.len();
            let mut out: Vec<&str> = lines[..=k].to_vec();
            out.extend_from_slice(&lines[k..]);
            out.join("\n")
        }
    }
}

/// Numbers as a file may write them, with the sizes and extremes that have hurt before.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(
            &[
                "0",
                "1",
                "-1",
                "2",
                "3",
                "0.5",
                "-0.5",
                "4",
                "9",
                "33",
                "129",
                "1e308",
                "-1e308",
                "1e999",
                "2.5e-320",
                "4000000000",
                "18446744073709551616",
                "100000000000",
            ][..]
        )
        .prop_map(str::to_string),
        (0u64..1_000_000_000_000).prop_map(|n| n.to_string()),
    ]
}

/// A setting value of any of the kinds the grammar has.
fn setting_value() -> impl Strategy<Value = String> {
    let unit = prop::sample::select(&["ms", "s", "sec", "min", "h"][..]);
    prop_oneof![
        number(),
        (number(), unit).prop_map(|(n, u)| format!("{n} {u}")),
        prop::collection::vec(number(), 2..4).prop_map(|d| d.join(" x ")),
        prop::sample::select(
            &[
                "tanh",
                "relu",
                "sin",
                "sobol",
                "lhs",
                "point",
                "global",
                "fresh",
                "fixed",
                "matern52",
                "se",
                "pinn",
                "ntk",
                "json",
                "number",
                "crank-nicolson",
                "backward-euler",
                "bogus",
                "\"\"",
                "\"sub\"",
                "\"../..\"",
                "[]",
                "[1, 2]",
                "[0.1, 1e308, -3]",
                "5%",
            ][..]
        )
        .prop_map(str::to_string),
    ]
}

/// Every setting key the language knows, and a few it does not.
fn setting_key() -> impl Strategy<Value = String> {
    let mut keys: Vec<String> = pinnbo_dsl::METHODS
        .iter()
        .flat_map(|m| m.settings().map(|s| s.key.to_string()))
        .collect();
    for key in [
        "grid",
        "points",
        "steps",
        "times",
        "scheme",
        "memory",
        "interpolation",
        "timeout",
        "output",
        "workdir",
        "max_failures",
        "widht",
        "",
    ] {
        keys.push(key.to_string());
    }
    keys.sort();
    keys.dedup();
    prop::sample::select(keys)
}

fn settings() -> impl Strategy<Value = String> {
    prop::collection::vec((setting_key(), setting_value()), 0..6).prop_map(|items| {
        items
            .into_iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// `f0 .. f{depth}`, each defined by its predecessor used `fan_out` times.
fn function_chain() -> impl Strategy<Value = (String, usize)> {
    (0..70usize, 1..4usize, any::<bool>()).prop_map(|(depth, fan_out, nest)| {
        let mut text = String::from("fn f0(a) = a + 1\n");
        for k in 1..=depth {
            let call = format!("f{}(a)", k - 1);
            let body = if nest {
                format!("f{}({})", k - 1, vec![call; fan_out].join(" * "))
            } else {
                vec![call; fan_out].join(" * ")
            };
            text.push_str(&format!("fn f{k}(a) = {body}\n"));
        }
        (text, depth)
    })
}

/// A whole problem: bounds, functions, a pde with a derivative of any order, an oracle and a
/// method with random settings, and random sizes.
fn generated_problem() -> impl Strategy<Value = String> {
    let oracle = prop_oneof![
        settings().prop_map(|s| {
            format!("oracle fdm {{\n  {s}\n  u(0, y) = 0\n  u(1, y) = 0\n  u(x, 0) = 0\n  u(x, 1) = 0\n  param k = 1\n}}")
        }),
        settings().prop_map(|s| format!("oracle command \"./sim {{x}} {{y}}\" {{ {s} }}")),
        Just("oracle closed-form".to_string()),
    ];
    let method = (
        prop::sample::select(pinnbo_dsl::method_names().collect::<Vec<_>>()),
        settings(),
    )
        .prop_map(|(m, s)| format!("method {m} {{ {s} }}"));
    let objective = prop::sample::select(&["u", "fK(x)", "u + fK(y)", "sum(i in 1..N, x^i)"][..]);
    (
        (number(), number()),
        function_chain(),
        number(),
        objective,
        oracle,
        method,
        (number(), number(), number()),
    )
        .prop_map(
            |(
                (lo, hi),
                (functions, depth),
                order,
                objective,
                oracle,
                method,
                (budget, init, n),
            )| {
                let objective = objective.replace('K', &depth.to_string()).replace('N', &n);
                format!(
                "problem \"fuzz\"\nvar x in [{lo}, {hi}], y in [0, 1]\nparam k in [{lo}, {hi}] log\n\
                 {functions}field u(x, y)\n\
                 pde d(u, x, {order}) + k*d(u, y, 2) = f0(x)\nminimize {objective}\n{oracle}\n\
                 budget {budget}, init {init} sobol\nseed {n}\n{method}\n"
            )
            },
        )
}

/// Shrinking a failure stops after two minutes: a case that times out costs
/// [`CASE_TIME`] per try.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_time: 120_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    // Generated problems reach the checker's expensive paths: a third as many as the others.
    #![proptest_config(config(cases().div_ceil(3)))]

    #[test]
    fn generated_problems(text in generated_problem()) {
        assert_well_behaved(&text);
    }
}

proptest! {
    #![proptest_config(config(cases()))]

    #[test]
    fn random_token_sequences(text in token_soup()) {
        assert_well_behaved(&text);
    }

    #[test]
    fn arbitrary_unicode(text in "\\PC{0,200}") {
        assert_well_behaved(&text);
    }

    #[test]
    fn mutated_problem_files(pick in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..6)) {
        let problems = shipped_problems();
        let mut text = problems[pick % problems.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        assert_well_behaved(&text);
    }
}

/// Inputs built to exhaust a recursive parser or checker.
#[test]
fn pathological_nesting_and_length_are_diagnosed_not_fatal() {
    let deep_parens = format!(
        "var x in [0, 1]\nminimize {}x{}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let long_chain = format!("var x in [0, 1]\nminimize x{}", " + x".repeat(200_000));
    let prefix_chain = format!("var x in [0, 1]\nminimize {}x", "-".repeat(100_000));
    let power_tower = format!("var x in [0, 1]\nminimize x{}", "^x".repeat(100_000));
    let huge_sum = "var x[3] in [0, 1]\nminimize sum(i in 1..1000000000, i) + sum(j in 1..3, sum(k in 1..90000, k))";
    for text in [
        deep_parens,
        long_chain,
        prefix_chain,
        power_tower,
        huge_sum.to_string(),
    ] {
        assert_well_behaved(&text);
    }
}

/// The longest expressions the language allows in a row (docs/dsl.md: 1,000 operators) are
/// not "too deep": a flat sum and a power tower of 1,000 operators compile, evaluate and
/// differentiate (issue 53, item 20: a flat sum of 256 terms was refused).
#[test]
fn a_thousand_operators_in_a_row_are_not_too_deep() {
    let sum = format!("x{}", " + x".repeat(1000));
    let text = format!(
        "var x in [0, 1], t in [0, 1]\nfield u(x, t)\npde d(u, t) = {sum}\nminimize {sum}\noracle external\n"
    );
    let problem = match pinnbo_dsl::compile(&pinnbo_dsl::Source::new("long.pde", text.as_str())) {
        Ok(c) => c.problem,
        Err(f) => panic!("{}", f.render(pinnbo_dsl::Style::Plain)),
    };
    let value = problem.closed_form_objective().unwrap().eval(&[0.5, 0.0]);
    assert_eq!(value, 500.5);
    let rhs = pinnbo_dsl::diff::expand(&problem.pdes[0].rhs).unwrap();
    assert_eq!(
        pinnbo_dsl::Compiled::new(&rhs, 2)
            .unwrap()
            .eval(&[0.25, 0.0]),
        250.25
    );
    let tower = format!("var x in [1, 2]\nminimize x{}\n", "^1".repeat(1000));
    let problem = pinnbo_dsl::compile(&pinnbo_dsl::Source::new("tower.pde", tower.as_str()))
        .unwrap_or_else(|f| panic!("{}", f.render(pinnbo_dsl::Style::Plain)))
        .problem;
    assert_eq!(problem.closed_form_objective().unwrap().eval(&[1.5]), 1.5);
}
