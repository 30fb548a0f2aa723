//! A file's new text as pieces of its old text and new lines, in order ([`Splice`]).

use std::io::{self, IoSlice, Write};
use std::ops::Range;

/// One run of the new text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Piece {
    /// These bytes of the original text.
    Keep(Range<usize>),
    /// Text the edit writes.
    New(String),
}

/// A file's new text as pieces of its old text and new lines, in order.
///
/// Most of an edited file is unchanged: a [`Splice`] says "these bytes of the original, then this
/// new text, then these bytes" instead of holding a second copy of the file. Writing it hands the
/// original's bytes straight to the kernel ([`Splice::write_to`]), so a large file is never
/// assembled in memory; [`Splice::materialize`] builds the text when a caller needs it whole.
///
/// ```
/// use salve_patch::Splice;
///
/// let original = "one\ntwo\nthree\n";
/// let mut s = Splice::default();
/// s.keep(original, 0..4);
/// s.push_new("2\n");
/// s.keep(original, 8..14);
/// assert_eq!(s.materialize(original), "one\n2\nthree\n");
/// let mut written = Vec::new();
/// s.write_to(original.as_bytes(), &mut written).unwrap();
/// assert_eq!(written, b"one\n2\nthree\n");
/// ```
///
/// Ranges are byte offsets into the original text the splice was built against, BOM included.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Splice {
    pieces: Vec<Piece>,
    len: usize,
}

/// Whole original lines `[old_start, old_end)` (0-based) replaced by `new_text` (whole lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LineChange {
    pub(crate) old_start: usize,
    pub(crate) old_end: usize,
    pub(crate) new_text: String,
}

/// Original bytes `[from, to)` replaced by `text`.
struct ByteChange {
    from: usize,
    to: usize,
    text: String,
}

impl Splice {
    /// What the splice changes, as stretches of whole lines of `original`, in order, not
    /// overlapping. A change inside a line (the final newline added or dropped) takes the whole
    /// line.
    pub(crate) fn line_changes(&self, original: &str) -> Vec<LineChange> {
        let bytes = original.as_bytes();
        let len = bytes.len();
        // 1. Byte stretches: where the kept ranges skip bytes, or new text sits between them.
        let mut raw: Vec<ByteChange> = Vec::new();
        let mut at = 0;
        let mut pending: Option<ByteChange> = None;
        for piece in &self.pieces {
            match piece {
                Piece::New(t) => pending
                    .get_or_insert_with(|| ByteChange {
                        from: at,
                        to: at,
                        text: String::new(),
                    })
                    .text
                    .push_str(t),
                Piece::Keep(r) => {
                    if r.start != at || pending.is_some() {
                        let mut c = pending.take().unwrap_or(ByteChange {
                            from: at,
                            to: at,
                            text: String::new(),
                        });
                        c.to = r.start;
                        raw.push(c);
                    }
                    at = r.end;
                }
            }
        }
        if at != len || pending.is_some() {
            let mut c = pending.unwrap_or(ByteChange {
                from: at,
                to: at,
                text: String::new(),
            });
            c.to = len;
            raw.push(c);
        }
        // 2. Widened to whole lines; stretches whose lines overlap or touch become one group
        //    (as a diff shows them: all removed lines, then all added ones).
        let line_start = |x: usize| memchr::memrchr(b'\n', &bytes[..x]).map_or(0, |p| p + 1);
        let line_end = |y: usize| {
            if y == 0 || y == len || bytes[y - 1] == b'\n' {
                y
            } else {
                memchr::memchr(b'\n', &bytes[y..]).map_or(len, |p| y + p + 1)
            }
        };
        let mut groups: Vec<(usize, usize, Vec<ByteChange>)> = Vec::new();
        for c in raw {
            let (x, y) = (line_start(c.from), line_end(c.to));
            match groups.last_mut() {
                Some((_, end, members)) if x <= *end => {
                    *end = (*end).max(y);
                    members.push(c);
                }
                _ => groups.push((x, y, vec![c])),
            }
        }
        // 3. Line numbers, counted as the groups go down the file.
        let mut counted = (0, 0);
        let mut line_of = |pos: usize| {
            let (from, lines) = counted;
            let n = lines + memchr::memchr_iter(b'\n', &bytes[from..pos]).count();
            counted = (pos, n);
            // The end of a last line without a newline is one more line down.
            n + usize::from(pos == len && len > 0 && bytes[len - 1] != b'\n')
        };
        groups
            .into_iter()
            .map(|(x, y, members)| {
                let mut text = String::new();
                let mut at = x;
                for m in &members {
                    text.push_str(&original[at..m.from]);
                    text.push_str(&m.text);
                    at = m.to;
                }
                text.push_str(&original[at..y]);
                LineChange {
                    old_start: line_of(x),
                    old_end: line_of(y),
                    new_text: text,
                }
            })
            .collect()
    }

    /// What the splice changes, line by line: each stretch of `original`'s lines (0-based,
    /// half-open) that it replaces, with how many lines replace it, in order. A syntax check
    /// uses it to tell which edit a line of the new text came from.
    pub fn changed_lines(&self, original: &str) -> Vec<(Range<usize>, usize)> {
        self.line_changes(original)
            .into_iter()
            .map(|c| (c.old_start..c.old_end, c.new_text.lines().count()))
            .collect()
    }

    /// A splice that is all new text.
    pub fn whole(text: String) -> Splice {
        let len = text.len();
        let pieces = if text.is_empty() {
            Vec::new()
        } else {
            vec![Piece::New(text)]
        };
        Splice { pieces, len }
    }

    /// The length of the new text in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the new text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many bytes of the original the new text keeps as they are. A whole-file write keeps
    /// none, though most of its lines may be the same: its diff is worth computing.
    pub fn kept_bytes(&self) -> usize {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Keep(range) => range.len(),
                Piece::New(_) => 0,
            })
            .sum()
    }

    /// The new text the splice puts in, piece by piece, in order (what it keeps of the
    /// original left out).
    pub fn new_pieces(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::New(text) => Some(text.as_str()),
            Piece::Keep(_) => None,
        })
    }

    /// The pieces, in order (tests look at how they merge).
    #[cfg(test)]
    fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// Append `range` of `original` (merged with the previous piece when adjacent).
    pub fn keep(&mut self, original: &str, range: Range<usize>) {
        debug_assert!(range.end <= original.len());
        if range.is_empty() {
            return;
        }
        self.len += range.len();
        if let Some(Piece::Keep(last)) = self.pieces.last_mut() {
            if last.end == range.start {
                last.end = range.end;
                return;
            }
        }
        self.pieces.push(Piece::Keep(range));
    }

    /// Append new text (merged with the previous piece when that is new text too).
    pub fn push_new(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.len += text.len();
        if let Some(Piece::New(last)) = self.pieces.last_mut() {
            last.push_str(text);
            return;
        }
        self.pieces.push(Piece::New(text.to_owned()));
    }

    fn bytes<'p>(piece: &'p Piece, original: &'p [u8]) -> &'p [u8] {
        match piece {
            Piece::Keep(r) => &original[r.clone()],
            Piece::New(s) => s.as_bytes(),
        }
    }

    /// Whether the new text ends with `suffix` (which may span pieces).
    pub(crate) fn ends_with(&self, original: &str, suffix: &str) -> bool {
        let want = suffix.as_bytes();
        if want.len() > self.len {
            return false;
        }
        let mut rest = want;
        for piece in self.pieces.iter().rev() {
            let b = Self::bytes(piece, original.as_bytes());
            let n = rest.len().min(b.len());
            if b[b.len() - n..] != rest[rest.len() - n..] {
                return false;
            }
            rest = &rest[..rest.len() - n];
            if rest.is_empty() {
                return true;
            }
        }
        rest.is_empty()
    }

    /// Drop the last `n` bytes of the new text (`n` at most [`Splice::len`], on a character
    /// boundary).
    pub(crate) fn truncate_end(&mut self, mut n: usize) {
        n = n.min(self.len);
        self.len -= n;
        while n > 0 {
            let Some(last) = self.pieces.last_mut() else {
                return;
            };
            let size = match last {
                Piece::Keep(r) => r.len(),
                Piece::New(s) => s.len(),
            };
            if size > n {
                match last {
                    Piece::Keep(r) => r.end -= n,
                    Piece::New(s) => s.truncate(s.len() - n),
                }
                return;
            }
            n -= size;
            self.pieces.pop();
        }
    }

    /// Whether the new text is exactly `original`.
    pub(crate) fn is_identity(&self, original: &str) -> bool {
        if self.len != original.len() {
            return false;
        }
        let mut at = 0;
        for piece in &self.pieces {
            let b = Self::bytes(piece, original.as_bytes());
            if !matches!(piece, Piece::Keep(r) if r.start == at)
                && b != &original.as_bytes()[at..at + b.len()]
            {
                return false;
            }
            at += b.len();
        }
        true
    }

    /// The new text, whole.
    pub fn materialize(&self, original: &str) -> String {
        let mut out = String::with_capacity(self.len);
        for piece in &self.pieces {
            match piece {
                Piece::Keep(r) => out.push_str(&original[r.clone()]),
                Piece::New(s) => out.push_str(s),
            }
        }
        out
    }

    /// Write the new text to `w` with vectored writes: the original's bytes go out from where
    /// they are, never copied into a second buffer first.
    pub fn write_to(&self, original: &[u8], w: &mut impl Write) -> io::Result<()> {
        let mut slices: Vec<IoSlice<'_>> = self
            .pieces
            .iter()
            .map(|p| IoSlice::new(Self::bytes(p, original)))
            .collect();
        let mut rest = &mut slices[..];
        while !rest.is_empty() {
            match w.write_vectored(rest) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the whole file",
                    ))
                }
                Ok(n) => IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// A writer that takes at most `step` bytes per call, to exercise partial vectored writes.
    struct Trickle {
        out: Vec<u8>,
        step: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step);
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn sample() -> (&'static str, Splice) {
        let original = "alpha\nbeta\ngamma\n";
        let mut s = Splice::default();
        s.keep(original, 0..6);
        s.keep(original, 6..11);
        s.push_new("BETA");
        s.push_new("\r\n");
        s.keep(original, 11..17);
        (original, s)
    }

    #[test]
    fn pieces_merge_and_materialize() {
        let (original, s) = sample();
        assert_eq!(
            s.pieces().len(),
            3,
            "adjacent keeps and adjacent new text merge"
        );
        assert_eq!(s.materialize(original), "alpha\nbeta\nBETA\r\ngamma\n");
        assert_eq!(s.len(), s.materialize(original).len());
        assert_eq!(Splice::whole("x\n".into()).materialize(""), "x\n");
        assert!(Splice::whole(String::new()).pieces().is_empty());
    }

    #[test]
    fn partial_writes_still_write_everything() {
        let (original, s) = sample();
        for step in [1, 2, 3, 7, 100] {
            let mut w = Trickle {
                out: Vec::new(),
                step,
            };
            s.write_to(original.as_bytes(), &mut w).unwrap();
            assert_eq!(w.out, s.materialize(original).as_bytes());
        }
    }

    #[test]
    fn suffix_checks_and_truncation_span_pieces() {
        let (original, mut s) = sample();
        assert!(s.ends_with(original, "\r\ngamma\n"));
        assert!(!s.ends_with(original, "\ngamma\n\n"));
        s.truncate_end(6);
        assert_eq!(s.materialize(original), "alpha\nbeta\nBETA\r\n");
        s.truncate_end(3);
        assert_eq!(s.materialize(original), "alpha\nbeta\nBET");
        assert_eq!(s.len(), 14);
        s.truncate_end(100);
        assert!(s.is_empty());
        assert_eq!(s.materialize(original), "");
    }

    #[test]
    fn identity_is_the_same_bytes_however_they_are_cut() {
        let original = "a\nb\nc\n";
        let mut same = Splice::default();
        same.keep(original, 0..2);
        same.push_new("b\n");
        same.keep(original, 4..6);
        assert!(same.is_identity(original));
        let mut other = Splice::default();
        other.keep(original, 0..2);
        other.push_new("B\n");
        other.keep(original, 4..6);
        assert!(!other.is_identity(original));
        let mut shorter = Splice::default();
        shorter.keep(original, 0..4);
        assert!(!shorter.is_identity(original));
    }
}
