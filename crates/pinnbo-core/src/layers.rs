//! The layering of pinnbo-core as a test: a module may name (`crate::x`) only modules of its
//! own layer or below, so a change ripples one way (docs/ARCHITECTURE.md); and in every crate
//! of the workspace, sibling modules never name each other in a circle (docs/style.md).

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

/// Source text with comments, string literals and character literals blanked (to spaces,
/// keeping every other character where it was), so that only code is read for paths.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                for _ in 0..skip.min(chars.len() - i) {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            // A character literal such as '"' or '{' (a lifetime has no closing quote).
            out.push_str("   ");
            i += 3;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal ('\'', '\n', '\u{..}'): blank through its closing
            // quote, the first after the escaped character.
            let close = (i + 3..chars.len())
                .find(|&j| chars[j] == '\'')
                .unwrap_or(chars.len() - 1);
            out.extend(std::iter::repeat_n(' ', close + 1 - i));
            i = close + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The module path of the file `relative` to a crate's `src/`: `a/b.rs` is `[a, b]`,
/// `a/mod.rs` is `[a]`, `lib.rs` and `main.rs` the crate itself.
fn module_path(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative.split('/').map(str::to_string).collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    let root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !root {
        parts.push(stem.to_string());
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a use tree at the start of `rest` (after `crate::`, `super::` or `self::`),
/// each below `base`: `a::b`, `a::{b, c::d}`, `{a, b}`.
fn use_tree(base: &[String], rest: &str, out: &mut Vec<Vec<String>>) {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        for (j, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    use_tree(base, &group[start..j], out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_tree(base, &group[start..j], out);
                    start = j + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
    if name.is_empty() || name == "self" {
        return;
    }
    let mut path = base.to_vec();
    path.push(name.clone());
    match rest[name.len()..].trim_start().strip_prefix("::") {
        Some(more) => use_tree(&path, more, out),
        None => out.push(path),
    }
}

/// Every module path `text` (the file of module `module`) names through `crate::`,
/// `super::` or `self::`, resolved against the module (inline `mod x { .. }` included) where
/// it is written. Test code (inside `#[cfg(test)] mod x { .. }`) is left out: a test may
/// reach across, as a user would (physics-gp's tests build gp-ei through the registry).
fn named_paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let code = code_only(text);
    let mut out = Vec::new();
    // Inline modules open at the current brace depth: (name, depth inside them, test only).
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut previous = ' ';
    let mut chars = code.char_indices();
    while let Some((i, c)) = chars.next() {
        let at_word = !(is_ident(previous) || previous == '$');
        previous = c;
        let rest = &code[i..];
        if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth = depth.saturating_sub(1);
            while inline.last().is_some_and(|(_, d, _)| *d > depth) {
                inline.pop();
            }
        } else if at_word && rest.starts_with("mod ") {
            let after = rest["mod ".len()..].trim_start();
            let name: String = after.chars().take_while(|c| is_ident(*c)).collect();
            if after[name.len()..].trim_start().starts_with('{') {
                let test = code[..i].trim_end().ends_with("#[cfg(test)]");
                inline.push((name, depth + 1, test));
            }
        } else if at_word
            && ["crate::", "super::", "self::"]
                .iter()
                .any(|p| rest.starts_with(p))
        {
            let mut here: Vec<String> = module.to_vec();
            here.extend(inline.iter().map(|(n, _, _)| n.clone()));
            let in_test = inline.iter().any(|(_, _, test)| *test);
            let (base, tail) = if let Some(t) = rest.strip_prefix("crate::") {
                (Vec::new(), t)
            } else if let Some(t) = rest.strip_prefix("self::") {
                (here, t)
            } else {
                let mut tail = rest;
                while let Some(t) = tail.strip_prefix("super::") {
                    tail = t.trim_start();
                    here.pop();
                }
                (here, tail)
            };
            // The tree ends at the first `;`, `(`, `<` or line end outside a group.
            let end = tree_end(tail);
            if !in_test {
                use_tree(&base, &tail[..end], &mut out);
            }
            // Past the prefix only: the tree itself names nothing further to resolve.
            let skip = rest.len() - tail.len();
            for _ in 0..rest[..skip].chars().count().saturating_sub(1) {
                chars.next();
            }
            previous = ':';
        }
    }
    out
}

/// Where the use tree or path at the start of `text` ends: its groups' braces closed, at
/// the first character that cannot continue a path.
fn tree_end(text: &str) -> usize {
    let mut depth = 0;
    for (j, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return j,
            '}' => depth -= 1,
            c if depth == 0 && !(is_ident(c) || c == ':' || c == ' ') => return j,
            _ => {}
        }
        if depth == 0 && c == ' ' && !text[j..].trim_start().starts_with("::") {
            return j;
        }
    }
    text.len()
}

/// The circles among sibling modules of one crate, given its files (path relative to `src/`,
/// text): a module and everything under it names a sibling (or something under it), and
/// the siblings so named lead back to it. Each as `group: a -> b -> a`.
fn sibling_circles(files: &[(String, String)]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(p, _)| module_path(p)).collect();
    // Files of test modules (`#[cfg(test)] mod tests;`) are test code throughout.
    let tests: BTreeSet<Vec<String>> = (files.iter())
        .flat_map(|(p, text)| {
            let parent = module_path(p);
            let code = code_only(text);
            let names: Vec<String> = (code.match_indices("#[cfg(test)]"))
                .filter_map(|(i, m)| {
                    let after = code[i + m.len()..].trim_start();
                    let after = after.strip_prefix("pub ").unwrap_or(after);
                    let name = after.strip_prefix("mod ")?.trim_start();
                    let name: String = name.chars().take_while(|c| is_ident(*c)).collect();
                    (!name.is_empty()).then_some(name)
                })
                .collect();
            names.into_iter().map(move |n| {
                let mut path = parent.clone();
                path.push(n);
                path
            })
        })
        .collect();
    // group -> child -> children it names
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (path, text) in files {
        let module = module_path(path);
        if tests.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        for target in named_paths(&module, text) {
            let common = (module.iter().zip(&target))
                .take_while(|(a, b)| a == b)
                .count();
            if common >= module.len() || common >= target.len() {
                continue;
            }
            if !modules.contains(&target[..=common]) {
                continue;
            }
            let group = module[..common].to_vec();
            let from = module[common].clone();
            let to = target[common].clone();
            edges
                .entry(group)
                .or_default()
                .entry(from)
                .or_default()
                .insert(to);
        }
    }
    let mut found = Vec::new();
    for (group, graph) in &edges {
        let mut reported: BTreeSet<BTreeSet<String>> = BTreeSet::new();
        for start in graph.keys() {
            if let Some(circle) = circle_from(graph, start) {
                let members: BTreeSet<String> = circle.iter().cloned().collect();
                if reported.insert(members) {
                    let name = if group.is_empty() {
                        "crate".to_string()
                    } else {
                        group.join("::")
                    };
                    found.push(format!("{name}: {}", circle.join(" -> ")));
                }
            }
        }
    }
    found
}

/// A shortest path from `start` back to itself in `graph`, as the names along it (`start`
/// first and last); None when there is none.
fn circle_from(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    start: &str,
) -> Option<Vec<String>> {
    let mut previous: std::collections::BTreeMap<String, String> = Default::default();
    let mut queue = std::collections::VecDeque::from([start.to_string()]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(&node).into_iter().flatten() {
            if next == start {
                let mut back = Vec::new();
                let mut at = node.clone();
                while at != start {
                    back.push(at.clone());
                    at = previous[&at].clone();
                }
                let mut circle = vec![start.to_string()];
                circle.extend(back.into_iter().rev());
                circle.push(start.to_string());
                return Some(circle);
            }
            if !previous.contains_key(next) && next != start {
                previous.insert(next.clone(), node.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

/// Every `.rs` file under `src` of each crate of the workspace, by crate name.
fn workspace_sources() -> Vec<(String, Vec<(String, String)>)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&crates)
        .expect("crates/ is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    entries.sort();
    for dir in entries {
        let src = dir.join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let texts = (files.iter())
            .map(|f| {
                let relative = f.strip_prefix(&src).expect("under src");
                let relative = relative.to_string_lossy().replace('\\', "/");
                (relative, std::fs::read_to_string(f).expect("a source file"))
            })
            .filter(|(relative, _)| relative != "layers.rs")
            .collect();
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        out.push((name.unwrap_or_default(), texts));
    }
    out
}

#[test]
fn no_sibling_modules_name_each_other_in_a_circle() {
    let mut found = Vec::new();
    for (name, files) in workspace_sources() {
        found.extend(
            sibling_circles(&files)
                .into_iter()
                .map(|c| format!("{name}: {c}")),
        );
    }
    assert!(
        found.is_empty(),
        "circles between siblings:\n{}",
        found.join("\n")
    );
}

/// A circle planted through `super::super::` and a `crate::` group in an inline module is
/// found; the same names in comments, strings, test modules or a one-way chain are not a
/// circle.
#[test]
fn a_planted_sibling_circle_is_found() {
    let file = |p: &str, t: &str| (p.to_string(), t.to_string());
    let planted = [
        file("lib.rs", "mod a;"),
        file("a/mod.rs", "mod b;\nmod c;\nmod d;\npub struct Shared;"),
        file(
            "a/b.rs",
            "use super::super::a::c::X;\nuse super::Shared; // crate::a::d in a comment",
        ),
        file(
            "a/c.rs",
            "pub struct X;\nconst T: &str = \"super::b\";\nmod inner {\n    \
             use crate::{a::{d::Z, b::Y}};\n}\n#[cfg(test)]\nmod tests {\n    use super::super::d::Z;\n}",
        ),
        file("a/d.rs", "pub struct Z;"),
    ];
    assert_eq!(sibling_circles(&planted), ["a: b -> c -> b"]);
    let one_way = [
        file("lib.rs", "mod a;"),
        file("a/mod.rs", "mod b;\nmod c;"),
        file("a/b.rs", "use super::c::X;"),
        file(
            "a/c.rs",
            "pub struct X;\nfn f() { let s = \"super::b\"; let c = '\"'; }\n\
             #[cfg(test)]\nmod tests {\n    use crate::a::b::f;\n}",
        ),
    ];
    // A test reaching back is not a circle of the code that ships.
    assert!(sibling_circles(&one_way).is_empty());
}
