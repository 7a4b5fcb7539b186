//! Property tests of the front end on random and mutated `.pde` inputs: it never panics, and
//! every failure comes back as diagnostics whose spans lie on the input's character boundaries.
//! `PROPTEST_CASES` scales the number of inputs (docs/results/measurements.md records a large run).

use pinnbo_dsl::{compile, Source, Style};
use proptest::prelude::*;

const TOKENS: &[&str] = &[
    "var",
    "field",
    "fn",
    "const",
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

/// Compiles and checks the invariants every outcome must satisfy.
fn assert_well_behaved(text: &str) {
    let source = Source::new("fuzz.pde", text.to_string());
    if let Err(failed) = compile(&source) {
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

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

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
