//! The layering of pinnbo-core as a test: a module may name (`crate::x`) only modules of its
//! own layer or below, so a change ripples one way (docs/ARCHITECTURE.md).

use std::path::Path;

/// The top-level modules, lowest layer first.
const LAYERS: &[&str] = &[
    "numerics",
    "space",
    "history",
    "diagnostics",
    "error",
    "oracle",
    "surrogates",
    "acquisition",
    "strategies",
    "run",
    "bench",
    "prelude",
    "lib",
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|m| *m == module)
}

/// The top-level modules `text` names through `crate::`, comments left out.
fn named_modules(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::b, c}`: the first name of each item at the group's top level.
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        out.push(ident(&group[j..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// The names in `text` (the file `relative` to `src/`) of modules above its own layer.
fn upward_imports(relative: &str, text: &str) -> Vec<String> {
    let own = relative
        .split(['/', '.'])
        .next()
        .expect("a file has a name");
    let Some(own_layer) = layer(own) else {
        return vec![format!("{relative}: `{own}` has no layer in LAYERS")];
    };
    named_modules(text)
        .into_iter()
        .filter(|m| layer(m).is_some_and(|l| l > own_layer))
        .map(|m| format!("{relative} names crate::{m}, a layer above `{own}`"))
        .collect()
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_from_a_layer_above() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src");
        let relative = relative.to_string_lossy().replace('\\', "/");
        if relative == "layers.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file");
        found.extend(upward_imports(&relative, &text));
    }
    assert!(found.is_empty(), "upward imports:\n{}", found.join("\n"));
}

#[test]
fn an_upward_import_is_found_in_every_form() {
    let text = "use crate::space::Space;\nuse crate::{history::Observed, strategies::{A, B}};\n\
                // crate::run in a comment\nlet x = crate::run::stream(1);";
    assert_eq!(
        upward_imports("acquisition/mod.rs", text),
        [
            "acquisition/mod.rs names crate::strategies, a layer above `acquisition`",
            "acquisition/mod.rs names crate::run, a layer above `acquisition`",
        ]
    );
    assert!(upward_imports("run/mod.rs", text).is_empty());
}
