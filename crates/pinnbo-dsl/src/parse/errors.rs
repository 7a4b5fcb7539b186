//! Syntax-error messages: pest's expectations translated into user words, and hints for
//! mistakes best recognized from the characters themselves.

use super::{leading_word, Rule, STATEMENT_KEYWORDS};
use crate::diag::{suggestion, Diagnostic};
use crate::source::Span;

/// What follows a complete statement but does not begin a new one.
pub(super) fn after_statement_error(
    text: &str,
    at: usize,
    err: &pest::error::Error<Rule>,
) -> Diagnostic {
    let word = leading_word(&text[at..]);
    if word
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
    {
        return unknown_statement(word, at);
    }
    syntax_error(text, usize::MAX, at, err)
}

pub(super) fn unknown_statement(word: &str, at: usize) -> Diagnostic {
    Diagnostic::error(
        "pde::unknown-statement",
        Span::new(at, at + word.len()),
        format!("unknown statement `{word}`"),
    )
    .with_label("a statement starts with a keyword")
    .with_help(
        suggestion(word, STATEMENT_KEYWORDS.iter().copied()).unwrap_or_else(|| {
            format!(
                "statements start with one of: {}",
                STATEMENT_KEYWORDS.join(", ")
            )
        }),
    )
}

/// What a grammar rule is called in a message.
fn user_words(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::EOI => "end of file",
        Rule::statement => "a statement (`var`, `field`, `pde`, `minimize`, ...)",
        Rule::statement_keyword => "a new statement",
        Rule::expr | Rule::number | Rule::percent | Rule::call | Rule::indexed => "an expression",
        Rule::ident => "a name",
        Rule::name => "a name",
        Rule::add | Rule::sub | Rule::mul | Rule::div | Rule::pow | Rule::is_level => "an operator",
        Rule::neg | Rule::pos => "an expression",
        Rule::index_range => "an index range `i in 1..n`",
        Rule::bounds => "bounds `[lo, hi]`",
        Rule::int_range => "an integer range `lo..hi`",
        Rule::reference_stmt => "a reference point `reference NAME = value, ..`",
        Rule::coord_item => "a coordinate `x in [lo, hi]`",
        Rule::sensor_values | Rule::sensor_tuples => {
            "sensor places `x = 0.1, 0.5` or `(x, t) = (0.1, 1), ..`"
        }
        Rule::sensor_names => "the coordinates `(x, t)`",
        Rule::sensor_point => "a point `(0.1, 1)`",
        Rule::levels => "levels `{a, b, c}`",
        Rule::params => "a parameter list `(x, y)`",
        Rule::comparison => "`<=` or `>=`",
        Rule::label => "a constraint label",
        Rule::kw_in => "`in`",
        Rule::kw_at => "`at`",
        Rule::string => "a string in double quotes",
        Rule::block => "`{`",
        Rule::condition => "a condition `lhs = rhs at x = a`",
        Rule::setting => "a setting `key value`",
        Rule::param_value => "a param's true value `param k = 2.5`",
        Rule::log_scale => "`log`",
        Rule::dims | Rule::duration | Rule::list | Rule::signed => "a value",
        Rule::oracle_fdm | Rule::oracle_command | Rule::oracle_closed_form => {
            "an oracle kind (`fdm`, `command`, `closed-form`)"
        }
        Rule::relative_noise => "a noise level",
        Rule::noise_kind => "`std` or `variance`",
        Rule::design => "an initial design (`sobol`, `lhs`, `random`)",
        Rule::assignment => "an assignment `x = value`",
        Rule::time_unit => "a time unit (ms, s, min, h)",
        _ => return None,
    })
}

pub(super) fn syntax_error(
    text: &str,
    stmt_start: usize,
    at: usize,
    err: &pest::error::Error<Rule>,
) -> Diagnostic {
    let found = describe_token(text, at);
    let token_len = token_len(text, at);
    let span = Span::new(at, (at + token_len).min(text.len()));
    // A statement that does not begin with a keyword: most likely a misspelt keyword.
    if at == stmt_start {
        let word = leading_word(&text[at..]);
        if !word.is_empty() {
            return unknown_statement(word, at);
        }
    }
    if let Some(d) = lexical_hint(text, at, span) {
        return d;
    }
    let mut expected: Vec<&str> = match &err.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            positives.iter().filter_map(|r| user_words(*r)).collect()
        }
        pest::error::ErrorVariant::CustomError { .. } => Vec::new(),
    };
    // Literal tokens (`]`, `)`, `=`) are not rules: pest reports them separately.
    if let Some(attempts) = err.parse_attempts() {
        for token in attempts.expected_tokens() {
            if let Some(word) = token_words(&token.to_string()) {
                expected.push(word);
            }
        }
    }
    let mut seen = Vec::new();
    expected.retain(|w| {
        let fresh = !seen.contains(w);
        seen.push(*w);
        fresh
    });
    // Alternatives that are almost never what was meant: `x(` (a call), `x[` (an index),
    // `i in` (a sum's range) after a name; the end of file where a statement could follow.
    if expected.len() > 1 {
        expected.retain(|w| !matches!(*w, "`(`" | "`[`" | "`in`" | "end of file"));
    }
    if expected.contains(&"an expression") {
        expected.retain(|w| *w != "a name");
    }
    // Operators are always possible after a complete operand; list them last.
    expected.sort_by_key(|w| (*w == "an operator", *w == "a new statement"));
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", join_or(&expected))
    };
    Diagnostic::error("pde::syntax", span, message).with_label(format!("unexpected {found}"))
}

/// How a literal token is named in "expected ..." messages.
fn token_words(token: &str) -> Option<&'static str> {
    Some(match token {
        ")" => "`)`",
        "]" => "`]`",
        "}" => "`}`",
        "(" => "`(`",
        "[" => "`[`",
        "{" => "`{`",
        "," => "`,`",
        "=" => "`=`",
        ":" => "`:`",
        ".." => "`..`",
        "\"" => "`\"`",
        _ => return None,
    })
}

/// Messages for mistakes best recognized from the characters themselves.
fn lexical_hint(text: &str, at: usize, span: Span) -> Option<Diagnostic> {
    let rest = &text[at..];
    let before = text[..at].chars().next_back();
    if rest.starts_with('.') && before.is_some_and(|c| c.is_ascii_digit()) {
        return Some(
            Diagnostic::error(
                "pde::malformed-number",
                span,
                "malformed number: a second decimal point",
            )
            .with_label("unexpected `.`"),
        );
    }
    if rest.starts_with('"') && !rest[1..].split('\n').next().unwrap_or("").contains('"') {
        return Some(
            Diagnostic::error("pde::unterminated-string", span, "unterminated string")
                .with_label("this string is never closed")
                .with_help("close it with `\"` on the same line"),
        );
    }
    None
}

fn join_or(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn token_len(text: &str, at: usize) -> usize {
    let rest = &text[at.min(text.len())..];
    let word = leading_word(rest);
    if !word.is_empty() {
        word.len()
    } else {
        rest.chars().next().map_or(0, char::len_utf8)
    }
}

fn describe_token(text: &str, at: usize) -> String {
    let rest = &text[at.min(text.len())..];
    match rest.chars().next() {
        None => "end of file".into(),
        Some('\n') | Some('\r') => "end of line".into(),
        Some(c) if is_invisible(c) => format!("invisible character U+{:04X}", c as u32),
        Some(_) => {
            let word = leading_word(rest);
            if word.is_empty() {
                format!("`{}`", rest.chars().next().unwrap_or(' '))
            } else {
                format!("`{word}`")
            }
        }
    }
}

/// Characters a terminal would not show (or show as a plain space): named by code point.
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{a0}' | '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
        )
}
