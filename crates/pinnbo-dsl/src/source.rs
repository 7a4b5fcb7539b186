//! Source text and byte spans into it.

use std::sync::Arc;

/// A half-open byte range `[start, end)` into a [`Source`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl From<pest::Span<'_>> for Span {
    fn from(s: pest::Span<'_>) -> Self {
        Span::new(s.start(), s.end())
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start, s.len()).into()
    }
}

/// A named source text, shared by the AST, the IR and every diagnostic.
#[derive(Clone, Debug)]
pub struct Source {
    name: Arc<str>,
    text: Arc<str>,
}

impl Source {
    /// A source text; a leading byte-order mark (which some editors write) is not part of it.
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => Arc::from(rest),
            None => text,
        };
        Source {
            name: name.into(),
            text,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text under a span.
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.start..span.end]
    }

    /// 1-based line and column (in characters) of a byte offset. A line ends at `\n`, `\r\n`
    /// or a lone `\r`, as it does for the parser ([`line_end`]).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let (mut line, mut start) = (1, 0);
        loop {
            let (end, next) = line_end(&self.text, start);
            if offset < next || end == self.text.len() {
                return (line, self.text[start..offset].chars().count() + 1);
            }
            line += 1;
            start = next;
        }
    }
}

/// The end of the line starting at `start` (before its terminator: `\n`, `\r\n` or a lone
/// `\r`) and the next line's start.
pub(crate) fn line_end(text: &str, start: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    match bytes[start..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
    {
        None => (text.len(), text.len()),
        Some(k) => {
            let end = start + k;
            let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
            (end, end + if crlf { 2 } else { 1 })
        }
    }
}

/// Reads at most `limit` bytes of the file at `path`: a larger file (or an endless one,
/// `/dev/zero`) is an error naming the limit, found before its bytes fill the memory.
pub fn read_bounded(path: &std::path::Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} MiB, more than pinnbo reads", limit >> 20),
        ));
    }
    Ok(bytes)
}

/// The most of a `.pde` file read: far above any problem (a problem of 10,000 variables
/// with their bounds is under 1 MiB).
pub const MAX_PROBLEM_BYTES: u64 = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_any_of_the_three_conventions_and_a_bom_is_dropped() {
        let s = Source::new("t", "\u{feff}a\nb\r\nc\rdé f");
        assert_eq!(s.text(), "a\nb\r\nc\rdé f");
        let at = |needle: &str| s.line_col(s.text().find(needle).unwrap());
        assert_eq!(at("a"), (1, 1));
        assert_eq!(at("b"), (2, 1));
        assert_eq!(at("\n"), (1, 2));
        assert_eq!(at("\r\n"), (2, 2));
        assert_eq!(at("c"), (3, 1));
        assert_eq!(at("f"), (4, 4), "columns count characters");
    }
}
