//! Small formats outside the `.pde` language, parsed with nom: the `--at` point list,
//! durations (`90s`, `10 min`, `1h30m`) and percentages (`5%`). Errors name the column and
//! what was expected, and render like `.pde` diagnostics.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, digit1, multispace0};
use nom::combinator::{all_consuming, cut, map, map_res, opt, recognize};
use nom::multi::{many1, separated_list1};
use nom::number::complete::double;
use nom::sequence::{delimited, pair, preceded, terminated};
use nom::{IResult, Parser};
use pinnbo_dsl::{Diagnostic, Source, Span};
use std::time::Duration;

/// A parse failure: where and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatError {
    pub flag: &'static str,
    pub input: String,
    pub offset: usize,
    pub expected: String,
}

impl FormatError {
    /// Renders with the input as the "source", underlining the offending column.
    pub fn render(&self, style: pinnbo_dsl::Style) -> String {
        let source = Source::new(self.flag, self.input.clone());
        // At the end of the input there is no character to underline: mark the last one.
        let (span, label) = match self.input[self.offset..].chars().next() {
            Some(c) => (
                Span::new(self.offset, self.offset + c.len_utf8()),
                format!("expected {}", self.expected),
            ),
            None => {
                let last = self.input.chars().next_back().map_or(0, char::len_utf8);
                (
                    Span::new(self.offset - last, self.offset),
                    format!("expected {} after this", self.expected),
                )
            }
        };
        let diag = Diagnostic::error(
            "pinnbo::bad-flag",
            span,
            format!("invalid {}: expected {}", self.flag, self.expected),
        )
        .with_label(label);
        pinnbo_dsl::render(&source, &[diag], style)
    }
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid {} `{}`: expected {} at column {}",
            self.flag,
            self.input,
            self.expected,
            self.input[..self.offset].chars().count() + 1
        )
    }
}

impl std::error::Error for FormatError {}

/// The value given to one name in `--at`.
#[derive(Clone, Debug, PartialEq)]
pub enum Assigned {
    Scalar(f64),
    List(Vec<f64>),
    /// A categorical variable's level, by name.
    Level(String),
}

/// `x=0.3`, `x[2]=1`, `x=[1, 2, 3]`, `material=copper`.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    pub name: String,
    pub index: Option<usize>,
    pub value: Assigned,
}

type Res<'a, T> = IResult<&'a str, T>;

fn ws<'a, T>(
    p: impl Parser<&'a str, Output = T, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = T, Error = nom::error::Error<&'a str>> {
    delimited(multispace0, p, multispace0)
}

fn ident(i: &str) -> Res<'_, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_alphabetic() || c == '_'),
        opt(take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_')),
    ))
    .parse(i)
}

fn assignment(i: &str) -> Res<'_, Assignment> {
    let index = delimited(
        char('['),
        map_res(ws(digit1), str::parse::<usize>),
        char(']'),
    );
    let list = delimited(
        ws(char('[')),
        separated_list1(char(','), ws(double)),
        cut(ws(char(']'))),
    );
    let level = map(ws(ident), |l: &str| Assigned::Level(l.to_string()));
    let value = alt((
        map(list, Assigned::List),
        map(ws(double), Assigned::Scalar),
        level,
    ));
    map(
        (ws(ident), opt(index), cut(ws(char('='))), cut(value)),
        |(name, index, _, value)| Assignment {
            name: name.to_string(),
            index,
            value,
        },
    )
    .parse(i)
}

/// Parses `--at`: comma-separated assignments.
pub fn point(input: &str) -> Result<Vec<Assignment>, FormatError> {
    run(
        "--at",
        input,
        separated_list1(char(','), assignment),
        |rest| {
            if rest.trim_start().starts_with('=') || rest.trim_start().is_empty() {
                "a number or a list `[a, b, ...]`"
            } else {
                "`name=value`, separated by commas"
            }
        },
    )
}

/// Parses a duration: `250ms`, `30s`, `10 min`, `2h`, `1h30m`.
pub fn duration(input: &str) -> Result<Duration, FormatError> {
    let unit = alt((
        map(tag("ms"), |_| 1e-3),
        map(alt((tag("min"), tag("m"))), |_| 60.0),
        map(alt((tag("sec"), tag("s"))), |_| 1.0),
        map(tag("h"), |_| 3600.0),
    ));
    let part = map((ws(double), cut(unit)), |(v, scale): (f64, f64)| v * scale);
    let total = map(many1(part), |parts: Vec<f64>| parts.iter().sum::<f64>());
    let secs = run("duration", input, total, |_| {
        "a number followed by a unit (ms, s, min, h)"
    })?;
    Duration::try_from_secs_f64(secs).map_err(|_| FormatError {
        flag: "duration",
        input: input.to_string(),
        offset: 0,
        expected: "a non-negative duration".into(),
    })
}

/// Parses a percentage `5%` into the fraction 0.05.
pub fn percentage(input: &str) -> Result<f64, FormatError> {
    let pct = map(terminated(ws(double), cut(char('%'))), |v| v / 100.0);
    run("percentage", input, preceded(multispace0, pct), |_| {
        "a number followed by `%`"
    })
}

/// Runs a parser over the whole input, turning a failure into a [`FormatError`].
fn run<'a, T>(
    flag: &'static str,
    input: &'a str,
    parser: impl Parser<&'a str, Output = T, Error = nom::error::Error<&'a str>>,
    expected: impl Fn(&str) -> &'static str,
) -> Result<T, FormatError> {
    match all_consuming(terminated(parser, multispace0)).parse(input) {
        Ok((_, v)) => Ok(v),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(FormatError {
            flag,
            input: input.to_string(),
            offset: input.len() - e.input.len(),
            expected: expected(e.input).to_string(),
        }),
        Err(nom::Err::Incomplete(_)) => Err(FormatError {
            flag,
            input: input.to_string(),
            offset: input.len(),
            expected: expected("").to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_lists() {
        let p = point("x=0.3, y = -1e-2,z[2]=5,w=[1, 2,3]").unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(
            p[0],
            Assignment {
                name: "x".into(),
                index: None,
                value: Assigned::Scalar(0.3)
            }
        );
        assert_eq!(p[1].value, Assigned::Scalar(-0.01));
        assert_eq!(p[2].index, Some(2));
        assert_eq!(p[3].value, Assigned::List(vec![1.0, 2.0, 3.0]));
        let level = point("material = copper, t=1").unwrap();
        assert_eq!(level[0].value, Assigned::Level("copper".into()));
    }

    #[test]
    fn point_errors_name_the_column() {
        let e = point("x=0.3,y=").unwrap_err();
        assert_eq!(e.offset, 8);
        assert_eq!(e.expected, "a number or a list `[a, b, ...]`");
        let e = point("x=0.3;y=1").unwrap_err();
        assert_eq!(e.offset, 5);
        assert_eq!(
            e.to_string(),
            "invalid --at `x=0.3;y=1`: expected `name=value`, separated by commas at column 6"
        );
        assert!(point("x=[1,2").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(duration("10 min").unwrap(), Duration::from_secs(600));
        assert_eq!(duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(duration("250ms").unwrap(), Duration::from_millis(250));
        let e = duration("10 parsecs").unwrap_err();
        assert_eq!(e.offset, 3);
        assert!(duration("-5s").is_err());
    }

    #[test]
    fn percentages() {
        assert_eq!(percentage("5%").unwrap(), 0.05);
        assert_eq!(percentage(" 12.5 %").unwrap(), 0.125);
        assert_eq!(
            percentage("5").unwrap_err().expected,
            "a number followed by `%`"
        );
    }
}
