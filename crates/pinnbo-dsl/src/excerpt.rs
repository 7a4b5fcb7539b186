//! The text a diagnostic shows, made safe and short for a terminal: a control character becomes
//! its visible picture (a NUL byte would otherwise reach the terminal raw), a lone carriage
//! return ends a line as it does for the parser, and a line too long to show is cut to a
//! window around what the diagnostic points at (one stray token must not echo a 5 MB line).
//! Spans move with the text; the `file:line:col` header stays the file's.

use crate::source::{line_end, Source, Span};
use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// Lines longer than this many characters are cut to a window of this many.
const SHOWN_LINE: usize = 160;
/// How many characters of a cut line are shown before the first one pointed at.
const LEAD: usize = 40;
const CUT: &str = "…";

#[derive(Debug)]
pub(crate) struct Excerpt {
    source: Source,
    text: String,
    /// Where the file's and the excerpt's offsets start to differ by a new amount, as
    /// (file offset, excerpt offset), non-decreasing in both.
    marks: Vec<(usize, usize)>,
}

impl Excerpt {
    /// The excerpt for a diagnostic pointing at `spans` (the primary first).
    pub(crate) fn new(source: &Source, spans: &[Span]) -> Excerpt {
        let mut excerpt = Excerpt {
            source: source.clone(),
            text: String::new(),
            marks: vec![(0, 0)],
        };
        let file = source.text();
        let mut start = 0;
        while start <= file.len() {
            let (end, next) = line_end(file, start);
            excerpt.push_line(start, end, spans);
            match &file[end..next] {
                "\r" => excerpt.text.push('\n'),
                ending => excerpt.text.push_str(ending),
            }
            if next == file.len() {
                break;
            }
            start = next;
        }
        excerpt
    }

    /// The line `file[start..end]`, cut to a window if it is long.
    fn push_line(&mut self, start: usize, end: usize, spans: &[Span]) {
        let line = &self.source.text()[start..end];
        // Bytes bound characters from above: most lines need no count.
        if line.len() <= SHOWN_LINE || line.chars().count() <= SHOWN_LINE {
            self.push_shown(start, end);
            return;
        }
        let chars: Vec<usize> = line.char_indices().map(|(i, _)| start + i).collect();
        let anchor = spans
            .iter()
            .map(|s| s.start)
            .find(|&at| (start..=end).contains(&at))
            .unwrap_or(start);
        let first = chars.partition_point(|&i| i < anchor).saturating_sub(LEAD);
        let last = (first + SHOWN_LINE).min(chars.len());
        let (from, to) = (chars[first], chars.get(last).copied().unwrap_or(end));
        if from > start {
            self.push_cut(from);
        }
        self.push_shown(from, to);
        if to < end {
            self.push_cut(end);
        }
    }

    /// A cut ending at file offset `resume`.
    fn push_cut(&mut self, resume: usize) {
        let file_at = self.file_offset_here();
        self.marks.push((file_at, self.text.len()));
        self.text.push_str(CUT);
        self.marks.push((resume, self.text.len()));
    }

    /// `file[from..to]`, a line's characters, with control characters made visible.
    fn push_shown(&mut self, from: usize, to: usize) {
        if self.file_offset_here() != from {
            self.marks.push((from, self.text.len()));
        }
        for (i, c) in self.source.text()[from..to].char_indices() {
            match picture(c) {
                Some(shown) => {
                    self.marks.push((from + i, self.text.len()));
                    self.text.push(shown);
                    self.marks.push((from + i + 1, self.text.len()));
                }
                None => self.text.push(c),
            }
        }
    }

    /// The file offset the end of the excerpt so far corresponds to.
    fn file_offset_here(&self) -> usize {
        let &(f, e) = self.marks.last().expect("marks start with (0, 0)");
        f + (self.text.len() - e)
    }

    /// The excerpt offset of a file offset (inside a cut: the cut's end).
    pub(crate) fn map(&self, offset: usize) -> usize {
        let i = self.marks.partition_point(|m| m.0 <= offset).max(1) - 1;
        let (f, e) = self.marks[i];
        let limit = self.marks.get(i + 1).map_or(self.text.len(), |m| m.1);
        (e + offset.saturating_sub(f)).min(limit)
    }

    /// The file offset of an excerpt offset.
    fn unmap(&self, offset: usize) -> usize {
        let i = self.marks.partition_point(|m| m.1 <= offset).max(1) - 1;
        let (f, e) = self.marks[i];
        let limit = self
            .marks
            .get(i + 1)
            .map_or(self.source.text().len(), |m| m.0);
        (f + offset.saturating_sub(e)).min(limit)
    }

    pub(crate) fn span(&self, span: Span) -> SourceSpan {
        let (start, end) = (self.map(span.start), self.map(span.end));
        (start, end.saturating_sub(start)).into()
    }
}

/// The visible stand-in for a control character (Unicode's control pictures).
fn picture(c: char) -> Option<char> {
    match c {
        '\t' => None,
        '\0'..='\x1f' => char::from_u32(0x2400 + c as u32),
        '\x7f' => Some('\u{2421}'),
        c if c.is_control() => Some('\u{fffd}'),
        _ => None,
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        // Without context, miette reads the span for the header's line:col: give the file's
        // (columns in characters, as everywhere in pinnbo), not the excerpt's.
        let (line, column) = if context_lines_before == 0 {
            let (line, col) = self.source.line_col(self.unmap(span.offset()));
            (line - 1, col - 1)
        } else {
            (contents.line(), contents.column())
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.source.name().to_string(),
            contents.data(),
            *contents.span(),
            line,
            column,
            contents.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(text: &str, spans: &[Span]) -> Excerpt {
        Excerpt::new(&Source::new("t.pde", text), spans)
    }

    #[test]
    fn short_plain_text_is_shown_as_it_is() {
        let e = excerpt("var x in [0, 1]\r\nminimize x\n", &[]);
        assert_eq!(e.text, "var x in [0, 1]\r\nminimize x\n");
        for o in 0..e.text.len() {
            assert_eq!((e.map(o), e.unmap(o)), (o, o));
        }
    }

    #[test]
    fn control_characters_and_lone_carriage_returns_become_visible_lines() {
        let e = excerpt("a\0b\rc\x1bd", &[]);
        assert_eq!(e.text, "a\u{2400}b\nc\u{241b}d");
        assert_eq!(e.map(1), 1);
        assert_eq!(e.map(2), 4, "after the NUL's three-byte picture");
        assert_eq!(e.unmap(4), 2);
        assert_eq!(e.map(7), e.text.len());
    }

    #[test]
    fn a_long_line_is_cut_around_the_span_and_the_header_keeps_the_files_position() {
        let line = format!(
            "minimize {}x ? {}",
            "x + ".repeat(100_000),
            "+ x ".repeat(100_000)
        );
        let text = format!("var x in [0, 1]\n{line}\n");
        let at = text.find('?').unwrap();
        let e = excerpt(&text, &[Span::new(at, at + 1)]);
        let shown = e.text.lines().nth(1).unwrap();
        assert_eq!(
            shown.chars().count(),
            SHOWN_LINE + 2,
            "the window and two cut marks"
        );
        assert!(shown.starts_with(CUT) && shown.ends_with(CUT));
        let mapped = e.map(at);
        assert_eq!(&e.text[mapped..mapped + 1], "?");
        assert_eq!(e.unmap(mapped), at);
        let header = e.read_span(&(mapped, 1).into(), 0, 0).unwrap();
        let col = text[..at].len() - text.find('\n').unwrap();
        assert_eq!((header.line(), header.column()), (1, col - 1));
    }
}
