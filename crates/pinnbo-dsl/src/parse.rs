//! Text -> AST with pest. Parses one statement at a time and re-synchronizes at the next
//! statement keyword after an error, so a file with several mistakes reports all of them.

use crate::ast::*;
use crate::diag::Diagnostic;
use build::Builder;
use errors::{after_statement_error, syntax_error};

mod build;
mod errors;
mod expressions;
use crate::source::{Source, Span};
use pest::iterators::Pair;
use pest::Parser;

#[derive(pest_derive::Parser)]
#[grammar = "../../../grammar/pde.pest"]
struct PdeParser;

/// Words that begin a statement; used to re-synchronize and to suggest near misses.
pub const STATEMENT_KEYWORDS: &[&str] = &[
    "var",
    "coord",
    "const",
    "param",
    "fn",
    "field",
    "pde",
    "minimize",
    "maximize",
    "subject",
    "constraint",
    "optimum",
    "oracle",
    "noise",
    "budget",
    "init",
    "seed",
    "method",
    "problem",
    "sensors",
];

/// Parses a whole file. Returns the statements that parsed and a diagnostic per syntax error.
pub fn parse(source: &Source) -> (File, Vec<Diagnostic>) {
    // Collect the literal tokens expected at an error, for "expected `]`"-style messages.
    pest::set_error_detail(true);
    let text = source.text();
    let mut file = File::default();
    let mut errors = Vec::new();
    if let Some(d) = check_nesting(text) {
        return (file, vec![d]);
    }
    let mut pos = skip_trivia(text, 0);
    while pos < text.len() {
        match PdeParser::parse(Rule::statement, &text[pos..]) {
            Ok(mut pairs) => {
                let pair = pairs.next().expect("pest returns the statement pair");
                let end = pos + pair.as_span().end();
                let body = pair.into_inner().next().expect("grammar: statement body");
                push_statement(&mut file, &mut errors, pos, body);
                pos = skip_trivia(text, end.max(pos + 1));
            }
            Err(err) => {
                let at = pos + error_offset(&err);
                // A complete statement followed by something that does not start one (a
                // misspelt keyword, a stray token): keep the statement, report what follows.
                if let Some((body, end)) = complete_statement(text, pos, at) {
                    push_statement(&mut file, &mut errors, pos, body);
                    errors.push(after_statement_error(text, end, &err));
                    pos = resync(text, end, end);
                    continue;
                }
                errors.push(syntax_error(text, pos, at, &err));
                if let Some(name) = declared_name(text, pos) {
                    file.failed_declarations.push(name);
                }
                pos = resync(text, pos, at);
            }
        }
    }
    (file, errors)
}

/// The name a declaration statement that failed to parse was declaring, if it got that far:
/// the checker stays quiet about its uses instead of calling them unknown.
fn declared_name(text: &str, stmt_start: usize) -> Option<Ident> {
    let rest = &text[stmt_start..];
    let keyword = leading_word(rest);
    if !matches!(keyword, "var" | "const" | "fn" | "field") {
        return None;
    }
    let after = stmt_start + keyword.len();
    let start = skip_trivia(text, after);
    let name = leading_word(&text[start..]);
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_');
    valid.then(|| Ident {
        name: name.to_string(),
        span: Span::new(start, start + name.len()),
    })
}

/// Brackets may nest at most this deep; the recursive-descent parser needs a bound.
pub const MAX_NESTING: usize = 64;
/// Operators in one (unparenthesized) expression.
pub const MAX_OPERATORS: usize = 1000;
/// Depth of an expression tree; every later pass over expressions is recursive. Above
/// [`MAX_OPERATORS`], so that the longest chain of operators allowed in a row is never too deep.
pub const MAX_DEPTH: u32 = 1024;

/// Finds brackets nested deeper than [`MAX_NESTING`], skipping comments and strings.
fn check_nesting(text: &str) -> Option<Diagnostic> {
    let mut depth = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '#' => while chars.next_if(|(_, c)| *c != '\n').is_some() {},
            '/' if chars.peek().is_some_and(|(_, c)| *c == '/') => {
                while chars.next_if(|(_, c)| *c != '\n').is_some() {}
            }
            '"' => while chars.next_if(|(_, c)| *c != '"' && *c != '\n').is_some() {},
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(
                        Diagnostic::error(
                            "pde::too-deep",
                            Span::new(i, i + 1),
                            format!("brackets nested more than {MAX_NESTING} deep"),
                        )
                        .with_label("too deep")
                        .with_help("split the expression with `fn` definitions"),
                    );
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn push_statement(
    file: &mut File,
    errors: &mut Vec<Diagnostic>,
    base: usize,
    body: Pair<'_, Rule>,
) {
    let builder = Builder { base, errors };
    if let Some(stmt) = builder.statement(body) {
        file.statements.push(stmt);
    }
}

/// The statement at `pos` if it parses completely and ends right where the error is.
fn complete_statement(text: &str, pos: usize, error_at: usize) -> Option<(Pair<'_, Rule>, usize)> {
    let pair = PdeParser::parse(Rule::statement_body, &text[pos..])
        .ok()?
        .next()?;
    let end = skip_trivia(text, pos + pair.as_span().end());
    (end == error_at).then_some((pair, end))
}

fn error_offset(err: &pest::error::Error<Rule>) -> usize {
    match err.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    }
}

/// Skips whitespace and comments.
fn skip_trivia(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() {
        match bytes[pos] {
            b' ' | b'\t' | b'\r' | b'\n' => pos += 1,
            b'#' => pos = line_end(text, pos),
            b'/' if bytes.get(pos + 1) == Some(&b'/') => pos = line_end(text, pos),
            _ => break,
        }
    }
    pos
}

fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i)
}

/// The next place to resume after a syntax error: the first line after the failed
/// statement's start that begins with a statement keyword, at or after the error's line.
fn resync(text: &str, stmt_start: usize, error_at: usize) -> usize {
    let error_line_start = text[..error_at.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let mut line_start = error_line_start;
    while line_start < text.len() {
        let first = skip_trivia_in_line(text, line_start);
        if first > stmt_start && starts_statement(&text[first..]) {
            return first;
        }
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => break,
        }
    }
    text.len()
}

fn skip_trivia_in_line(text: &str, mut pos: usize) -> usize {
    while pos < text.len() && matches!(text.as_bytes()[pos], b' ' | b'\t') {
        pos += 1;
    }
    pos
}

fn starts_statement(rest: &str) -> bool {
    let word = leading_word(rest);
    STATEMENT_KEYWORDS.contains(&word)
}

fn leading_word(rest: &str) -> &str {
    let end = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(i, _)| i);
    &rest[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> File {
        let (file, errors) = parse(&Source::new("t.pde", text));
        assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
        file
    }

    fn objective(text: &str) -> Expr {
        let file = parse_ok(&format!("minimize {text}"));
        match &file.statements[0].kind {
            StmtKind::Objective { expr, .. } => expr.clone(),
            other => panic!("not an objective: {other:?}"),
        }
    }

    fn sexpr(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Number(v) => format!("{v}"),
            ExprKind::Name(n) => n.clone(),
            ExprKind::Index { name, index } => format!("{}[{}]", name.name, sexpr(index)),
            ExprKind::Call { name, args } => {
                let args: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Expr(e) => sexpr(e),
                        Arg::Range { binder, lo, hi, .. } => {
                            format!("{} in {}..{}", binder.name, sexpr(lo), sexpr(hi))
                        }
                    })
                    .collect();
                format!("{}({})", name.name, args.join(" "))
            }
            ExprKind::Unary(UnaryOp::Neg, e) => format!("(neg {})", sexpr(e)),
            ExprKind::Unary(UnaryOp::Pos, e) => format!("(pos {})", sexpr(e)),
            ExprKind::Binary(op, a, b) => format!("({op:?} {} {})", sexpr(a), sexpr(b)),
            ExprKind::IsLevel(a, b) => format!("(Is {} {})", sexpr(a), sexpr(b)),
        }
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(sexpr(&objective("-2^2")), "(neg (Pow 2 2))");
        assert_eq!(sexpr(&objective("2^3^2")), "(Pow 2 (Pow 3 2))");
        assert_eq!(sexpr(&objective("1 - 2 - 3")), "(Sub (Sub 1 2) 3)");
        assert_eq!(
            sexpr(&objective("1 + 2 * 3 / 4")),
            "(Add 1 (Div (Mul 2 3) 4))"
        );
        assert_eq!(sexpr(&objective("x^-2")), "(Pow x (neg 2))");
        assert_eq!(
            sexpr(&objective("sum(i in 1..10, x[i]) * 5%")),
            "(Mul sum(i in 1..10 x[i]) 0.05)"
        );
        assert_eq!(sexpr(&objective("1.5e-3 + .5")), "(Add 0.0015 0.5)");
        assert_eq!(
            sexpr(&objective("3*(m == a) + m[2] == b")),
            "(Is (Add (Mul 3 (Is m a)) m[2]) b)"
        );
    }

    #[test]
    fn multi_line_expressions_and_statements_without_separators() {
        let file = parse_ok(
            "var x in [0, 1]\nfn r(x) = 2*x\n  + 1\nminimize r(x) # c\nbudget 10, init 3 sobol\n",
        );
        assert_eq!(file.statements.len(), 5);
    }

    #[test]
    fn reports_every_syntax_error() {
        let src = Source::new("t.pde", "var x in [0, 1\nminimize x +\nbudget 10\nseed )\n");
        let (file, errors) = parse(&src);
        assert_eq!(errors.len(), 3, "{errors:#?}");
        // `budget 10` still parsed between the errors.
        assert!(file
            .statements
            .iter()
            .any(|s| matches!(s.kind, StmtKind::Budget(_))));
    }

    /// `param k in [lo, hi] log` declares; `param k = v` in a block states a true value.
    #[test]
    fn params_and_their_true_values() {
        let file = parse_ok(
            "param k in [0.1, 10] log\nparam s in [-1, 1]\noracle fdm { param k = 2.5 }\n",
        );
        let logs: Vec<bool> = (file.statements.iter())
            .filter_map(|s| match &s.kind {
                StmtKind::Param { log, .. } => Some(*log),
                _ => None,
            })
            .collect();
        assert_eq!(logs, [true, false]);
        let StmtKind::Oracle { items, .. } = &file.statements[2].kind else {
            panic!()
        };
        assert!(matches!(&items[0], BlockItem::ParamValue { name, .. } if name.name == "k"));
    }

    #[test]
    fn settings_values() {
        let file = parse_ok(
            "oracle command \"sim {x}\" { timeout 10 min, output json }\n\
             method pinn-bo { width 100 depth 3, lr 1e-3, activation tanh, grid 17 x 9, times [0.5, 1] }",
        );
        let StmtKind::Method { items, .. } = &file.statements[1].kind else {
            panic!()
        };
        let values: Vec<&Value> = items
            .iter()
            .map(|i| match i {
                BlockItem::Setting(s) => &s.value,
                _ => panic!("not a setting"),
            })
            .collect();
        assert_eq!(
            values,
            [
                &Value::Number(100.0),
                &Value::Number(3.0),
                &Value::Number(1e-3),
                &Value::Name("tanh".into()),
                &Value::Dims(vec![17.0, 9.0]),
                &Value::List(vec![0.5, 1.0])
            ]
        );
        let StmtKind::Oracle { items, .. } = &file.statements[0].kind else {
            panic!()
        };
        assert!(
            matches!(&items[0], BlockItem::Setting(Setting { value: Value::Duration(d), .. }) if d.as_secs() == 600)
        );
    }
}
