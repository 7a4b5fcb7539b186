//! Diagnostics: every problem found in a `.pde` file, with its span and a hint in user words.
//!
//! Library code never prints; it returns [`Diagnostic`]s. [`render`] turns them into the
//! rustc-style text the CLI shows (file:line:col, the span underlined, help).

use crate::excerpt::Excerpt;
use crate::source::{Source, Span};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding about a source file.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable machine-readable code, e.g. `pde::unknown-name`.
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// Text under the primary span.
    pub label: String,
    pub help: Option<String>,
    /// Secondary spans, e.g. "first declared here".
    pub related: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
            related: Vec::new(),
        }
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_help_opt(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }

    pub fn with_related(mut self, span: Span, text: impl Into<String>) -> Self {
        self.related.push((span, text.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A diagnostic bound to its source, as miette wants it.
#[derive(Debug)]
struct Located<'a> {
    diag: &'a Diagnostic,
    source: Excerpt,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.diag.fmt(f)
    }
}

impl std::error::Error for Located<'_> {}

impl miette::Diagnostic for Located<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.diag.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let primary = miette::LabeledSpan::new_primary_with_span(
            (!self.diag.label.is_empty()).then(|| self.diag.label.clone()),
            self.source.span(self.diag.span),
        );
        let related = self.diag.related.iter().map(|(span, text)| {
            miette::LabeledSpan::new_with_span(Some(text.clone()), self.source.span(*span))
        });
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

/// How [`render`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Unicode art with colours, for terminals.
    Color,
    /// Unicode art without colours, for logs and snapshot tests.
    Plain,
}

/// Renders diagnostics rustc-style, each with `file:line:col` and its snippet.
pub fn render(source: &Source, diagnostics: &[Diagnostic], style: Style) -> String {
    let theme = match style {
        Style::Color => miette::GraphicalTheme::unicode(),
        Style::Plain => miette::GraphicalTheme::unicode_nocolor(),
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme).with_width(100);
    let mut out = String::new();
    // Past the cap, the errors first (in file order): a hundred warnings must not hide the
    // one error that stops the file.
    let mut shown: Vec<&Diagnostic> = diagnostics.iter().collect();
    if shown.len() > MAX_RENDERED {
        shown.sort_by_key(|d| !d.is_error());
    }
    for (i, diag) in shown.into_iter().take(MAX_RENDERED).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let spans: Vec<Span> = std::iter::once(diag.span)
            .chain(diag.related.iter().map(|(span, _)| *span))
            .collect();
        let located = Located {
            diag,
            source: Excerpt::new(source, &spans),
        };
        // Writing into a String cannot fail.
        let _ = handler.render_report(&mut out, &located);
    }
    if diagnostics.len() > MAX_RENDERED {
        out.push_str(&format!(
            "\n… and {} more not shown (the first {MAX_RENDERED} are, errors first)\n",
            diagnostics.len() - MAX_RENDERED
        ));
    }
    out
}

/// How many diagnostics [`render`] draws: past these, a file is better mended from the top
/// and checked again (and drawing each costs a pass over the file).
pub const MAX_RENDERED: usize = 100;

/// The closest candidate to a misspelt name, if one is close enough to be a plausible typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    // One edit per three characters; one- and two-letter names are too short to guess at.
    let len = name.chars().count();
    if len < 3 {
        return None;
    }
    let limit = (len / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// "did you mean `x`?" for [`Diagnostic::with_help_opt`].
pub fn suggestion<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    did_you_mean(name, candidates).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_misses_only() {
        assert_eq!(
            did_you_mean("laplacain", ["laplacian", "grad"]),
            Some("laplacian")
        );
        assert_eq!(
            did_you_mean("minimise", ["minimize", "maximize"]),
            Some("minimize")
        );
        assert_eq!(did_you_mean("q", ["x", "y"]), None);
        assert_eq!(did_you_mean("temperature", ["x", "y"]), None);
    }
}
