//! The file as the applier sees it: lines with their own endings, plus the comparison forms the
//! placement ladder uses.
//!
//! A [`Doc`] splits a file once into [`Line`]s (byte spans without the line ending) and remembers
//! everything the file's bytes say about itself: a UTF-8 byte-order mark, each line's ending, the
//! dominant ending for lines the edit inserts, and whether the last line ends with a newline. The
//! applier copies untouched bytes straight from the original text, so it never has to rebuild
//! them.
//!
//! [`Form`]s are the line comparisons of the first ladder rungs, from byte equality to a canonical
//! form that folds whitespace and typographic Unicode. [`hash_form`] hashes a line in a form so
//! the index can seed candidate windows without comparing strings.

use std::borrow::Cow;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

mod split;
mod trim;

pub(crate) use split::Visit;
#[cfg(test)]
use split::SPLIT_BYTES;
use split::{split_lines, split_lines_visiting};
use trim::trim_start;
pub(crate) use trim::Trim;

/// The UTF-8 byte-order mark.
pub(crate) const BOM: char = '\u{feff}';

/// How one line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eol {
    /// The last line of a file without a final newline.
    None,
    Lf,
    CrLf,
}

impl Eol {
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::None => "",
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
        }
    }
}

/// One line: the byte span of its content (without the ending) and its ending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub start: usize,
    pub end: usize,
    pub eol: Eol,
}

impl Line {
    /// The byte offset just past the line's ending.
    pub fn next(&self) -> usize {
        self.end + self.eol.as_str().len()
    }
}

/// Where each line starts, as byte offsets into the body. Four bytes a line for any file under
/// 4 GiB (a 270k-line file costs 1 MB instead of 6.5 MB, most of which was page faults).
#[derive(Clone, Debug)]
enum Starts {
    Small(Vec<u32>),
    Large(Vec<usize>),
}

impl Starts {
    #[inline]
    fn get(&self, i: usize) -> usize {
        match self {
            Starts::Small(v) => v[i] as usize,
            Starts::Large(v) => v[i],
        }
    }

    #[inline]
    fn len(&self) -> usize {
        match self {
            Starts::Small(v) => v.len(),
            Starts::Large(v) => v.len(),
        }
    }
}

/// A file split into lines.
#[derive(Clone, Debug)]
pub struct Doc<'a> {
    /// The whole text, byte-order mark included.
    pub text: &'a str,
    /// The text after the byte-order mark.
    pub body: &'a str,
    /// Whether the text starts with a byte-order mark.
    pub bom: bool,
    starts: Starts,
    /// The ending given to inserted lines: the most common one in the file (LF on a tie or when
    /// the file has no line ending at all).
    pub dominant: Eol,
    /// Whether the last line ends with a line ending. An empty file counts as ending with one,
    /// so text added to it ends with a newline.
    pub final_newline: bool,
}

impl<'a> Doc<'a> {
    /// Splits `text` into lines (a large text in two halves at once).
    pub fn parse(text: &'a str) -> Doc<'a> {
        Self::parse_visiting(text, &mut |_, _| {}, &mut |_, _| {})
    }

    /// The text after its byte-order mark, if any: what line offsets count in.
    pub(crate) fn body_of(text: &str) -> &str {
        text.strip_prefix(BOM).unwrap_or(text)
    }

    /// [`Doc::parse`], with the lines shown to `lower` and `upper` as the split finds them, as
    /// 32-bit starts into [`Doc::body_of`] (see [`Visit`]; the two run on two threads). A text
    /// of 4 GiB or more shows none.
    pub(crate) fn parse_visiting(
        text: &'a str,
        lower: &mut Visit<'_, u32>,
        upper: &mut Visit<'_, u32>,
    ) -> Doc<'a> {
        let (body, bom) = match text.strip_prefix(BOM) {
            Some(rest) => (rest, true),
            None => (text, false),
        };
        let bytes = body.as_bytes();
        // The split may write a little past the end (see `line_starts`): keep u32 clear of it.
        let (starts, crlf) = if u32::try_from(bytes.len() + 128).is_ok() {
            let (s, crlf) = split_lines_visiting(bytes, |o| o as u32, lower, upper);
            (Starts::Small(s), crlf)
        } else {
            let (s, crlf) = split_lines(bytes, |o| o);
            (Starts::Large(s), crlf)
        };
        let lines = starts.len();
        let final_newline = bytes.last().is_none_or(|&b| b == b'\n');
        let lf = lines - usize::from(!final_newline) - crlf;
        let dominant = if crlf > lf { Eol::CrLf } else { Eol::Lf };
        Doc {
            text,
            body,
            bom,
            starts,
            dominant,
            final_newline,
        }
    }

    /// The number of lines.
    #[inline]
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Every line's start as a 32-bit offset into [`Doc::body`], when the text is small enough
    /// for them (under 4 GiB): the passes over every line read them directly. Line `i` ends
    /// one byte (its newline) before line `i + 1` starts.
    pub(crate) fn starts32(&self) -> Option<&[u32]> {
        match &self.starts {
            Starts::Small(v) => Some(v),
            Starts::Large(_) => None,
        }
    }

    /// True for a text without lines.
    pub fn is_empty(&self) -> bool {
        self.starts.len() == 0
    }

    /// Line `i`: its content span and its ending.
    // Called once per line of the file by the index's pass: inlined into that loop.
    #[inline]
    pub fn span(&self, i: usize) -> Line {
        let start = self.starts.get(i);
        if i + 1 == self.len() && !self.final_newline {
            return Line {
                start,
                end: self.body.len(),
                eol: Eol::None,
            };
        }
        let nl = if i + 1 < self.len() {
            self.starts.get(i + 1) - 1
        } else {
            self.body.len() - 1
        };
        let bytes = self.body.as_bytes();
        if nl > start && bytes[nl - 1] == b'\r' {
            Line {
                start,
                end: nl - 1,
                eol: Eol::CrLf,
            }
        } else {
            Line {
                start,
                end: nl,
                eol: Eol::Lf,
            }
        }
    }

    /// Every line's content (without its ending), in order: cheaper than [`Doc::line`] for each
    /// index, for the passes over the whole file.
    pub fn lines(&self) -> impl Iterator<Item = &'a str> + '_ {
        let body = self.body;
        self.spans().map(move |(start, end)| &body[start..end])
    }

    /// Every line's content as `(start, end)` byte offsets into [`Doc::body`], in order.
    pub fn spans(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.spans_in(0..self.len())
    }

    /// [`Doc::spans`] of the lines in `lines`.
    pub fn spans_in(
        &self,
        lines: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, usize)> + '_ {
        lines.map(move |i| {
            let l = self.span(i);
            (l.start, l.end)
        })
    }

    /// The ending of line `i`.
    pub fn eol(&self, i: usize) -> Eol {
        self.span(i).eol
    }

    /// The content of line `i`, without its ending.
    #[inline]
    pub fn line(&self, i: usize) -> &'a str {
        let l = self.span(i);
        &self.body[l.start..l.end]
    }

    /// The content of line `i` with its ending.
    pub fn line_with_eol(&self, i: usize) -> &'a str {
        let l = self.span(i);
        &self.body[l.start..l.next()]
    }

    /// The byte offset where line `i` starts; `len()` gives the end of the body.
    pub fn offset(&self, i: usize) -> usize {
        if i < self.len() {
            self.starts.get(i)
        } else {
            self.body.len()
        }
    }

    /// Whether leading indentation in this file is mostly tabs.
    pub fn indents_with_tabs(&self) -> bool {
        let (mut tabs, mut spaces) = (0usize, 0usize);
        for line in self.lines() {
            match line.as_bytes().first() {
                Some(b'\t') => tabs += 1,
                Some(b' ') => spaces += 1,
                _ => {}
            }
        }
        tabs > spaces
    }
}

/// A line comparison, from strictest to loosest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// Bytes equal (the line ending is never part of a line).
    Raw,
    /// Trailing whitespace ignored.
    TrimEnd,
    /// Leading and trailing whitespace ignored (the indent rung then checks the delta).
    Trim,
    /// Whitespace runs collapsed, NFC, typographic quotes, dashes, spaces and invisible
    /// characters folded.
    Canon,
}

impl Form {
    /// Every form, strictest first.
    pub const ALL: [Form; 4] = [Form::Raw, Form::TrimEnd, Form::Trim, Form::Canon];

    /// The form's position in [`Form::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The line as this form compares it.
    pub fn apply(self, s: &str) -> Cow<'_, str> {
        match self {
            Form::Raw => Cow::Borrowed(strip_cr(s)),
            Form::TrimEnd => Cow::Borrowed(s.trim_end_ws()),
            Form::Trim => Cow::Borrowed(s.trim_ws()),
            Form::Canon => canonical(s),
        }
    }
}

/// A pattern line may still carry the `\r` of a CRLF reply; line endings are never compared.
pub(crate) fn strip_cr(s: &str) -> &str {
    // A byte test: this runs for every line of every file in every form.
    match s.as_bytes().last() {
        Some(b'\r') => &s[..s.len() - 1],
        _ => s,
    }
}

/// Hash of `s` compared in `form`.
pub(crate) fn hash_form(form: Form, s: &str) -> u64 {
    match form {
        Form::Canon => hash_canonical(s),
        _ => hash_str(&form.apply(s)),
    }
}

/// `hash_str(&canonical(s))` without a new string for every line: an ASCII line whose
/// whitespace needs collapsing (aligned code, tabs) is collapsed into a reused buffer.
fn hash_canonical(s: &str) -> u64 {
    let s = strip_cr(s);
    if !s.is_ascii() {
        return hash_str(&canonical(s));
    }
    let t = s.trim_ascii();
    if !needs_collapse(t) {
        return hash_str(t);
    }
    thread_local! {
        static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUF.with(|buf| {
        let mut out = buf.borrow_mut();
        out.clear();
        collapse_into(t, &mut out);
        hash_str(&out)
    })
}

/// A fast 64-bit string hash (foldhash with a fixed seed, so the same text always hashes the
/// same). Equal hashes are treated as equal lines; at 64 bits a false match is not a practical
/// concern.
pub(crate) fn hash_str(s: &str) -> u64 {
    hash_bytes(s.as_bytes())
}

/// [`hash_str`] over bytes, for prefixes that may end inside a character.
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    const SEED: u64 = 0x5a17_e5a1_7e00_0001;
    foldhash::quality::FixedState::with_seed(SEED).hash_one(bytes)
}

/// Whether `bytes` look binary: they hold a NUL byte, as git decides (vectorized: this runs over
/// every byte of every file read).
pub fn is_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, bytes).is_some()
}

/// A line holding nothing but whitespace.
pub(crate) fn is_blank(s: &str) -> bool {
    trim_start(s).is_empty()
}

/// A line that says something of its own: a letter or digit (not only brackets, punctuation
/// or whitespace).
pub(crate) fn has_words(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// The leading whitespace of a line.
pub(crate) fn leading_ws(s: &str) -> &str {
    &s[..s.len() - trim_start(s).len()]
}

/// Whether two lines have the same [`canonical`] form. Most compared lines are byte-equal,
/// which settles it without building either form.
pub(crate) fn canonical_eq(a: &str, b: &str) -> bool {
    let (a, b) = (strip_cr(a), strip_cr(b));
    a == b || canonical(a) == canonical(b)
}

/// The canonical form: NFC, typographic characters folded to ASCII, invisible characters
/// removed, whitespace runs collapsed to one space, ends trimmed.
pub(crate) fn canonical(s: &str) -> Cow<'_, str> {
    let s = strip_cr(s);
    if s.is_ascii() {
        return collapse_ws(s);
    }
    let nfc: Cow<'_, str> = match is_nfc_quick(s.chars()) {
        IsNormalized::Yes => Cow::Borrowed(s),
        _ => Cow::Owned(s.nfc().collect()),
    };
    let mut out = String::with_capacity(nfc.len());
    let mut pending_space = false;
    for c in nfc.chars() {
        let folded = fold_char(c);
        for f in folded.chars() {
            if f.is_whitespace() {
                pending_space = !out.is_empty();
            } else {
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
                out.push(f);
            }
        }
    }
    Cow::Owned(out)
}

/// `s` (ASCII) trimmed, with every whitespace run made one space. One pass over the bytes decides
/// whether anything but the trim is needed, which is rare in code.
fn collapse_ws(s: &str) -> Cow<'_, str> {
    let t = s.trim_ascii();
    if !needs_collapse(t) {
        return Cow::Borrowed(t);
    }
    let mut out = String::with_capacity(t.len());
    collapse_into(t, &mut out);
    Cow::Owned(out)
}

/// Whether trimmed ASCII `t` has whitespace other than single spaces.
fn needs_collapse(t: &str) -> bool {
    let mut prev_ws = false;
    t.bytes().any(|c| {
        let ws = c.is_ascii_whitespace();
        let bad = ws && (prev_ws || c != b' ');
        prev_ws = ws;
        bad
    })
}

/// Trimmed ASCII `t` with every whitespace run made one space, appended to `out`.
fn collapse_into(t: &str, out: &mut String) {
    let mut space = false;
    for c in t.chars() {
        if c.is_ascii_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
}

/// Typographic and invisible characters models substitute for ASCII.
pub(crate) fn fold_char(c: char) -> Cow<'static, str> {
    let s: &'static str = match c {
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' | '\u{2032}' | '\u{02bc}' => "'",
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' | '\u{2033}' | '\u{00ab}'
        | '\u{00bb}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => "-",
        '\u{2026}' => "...",
        '\u{00a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => " ",
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{00ad}' => "",
        _ => return Cow::Owned(c.to_string()),
    };
    Cow::Borrowed(s)
}

/// Display width of leading whitespace with tabs of `tab` columns.
pub(crate) fn indent_width(ws: &str, tab: usize) -> usize {
    let mut w = 0;
    for c in ws.chars() {
        if c == '\t' {
            w += tab - w % tab;
        } else {
            w += 1;
        }
    }
    w
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines_with_their_endings() {
        let d = Doc::parse("a\r\nb\nc");
        assert_eq!(d.len(), 3);
        assert_eq!(d.line(0), "a");
        assert_eq!(d.eol(0), Eol::CrLf);
        assert_eq!(d.eol(1), Eol::Lf);
        assert_eq!(d.eol(2), Eol::None);
        assert!(!d.final_newline);
        assert_eq!(d.line_with_eol(0), "a\r\n");
    }

    #[test]
    fn line_split_matches_a_plain_scan() {
        // Every mix of short lines, endings and multi-byte text across the 8-byte word edges.
        let pieces = [
            "",
            "a",
            "\n",
            "\r\n",
            "\r",
            "bcdefgh",
            "\u{e9}\u{201c}",
            "\n\n",
        ];
        let mut seed: u64 = 7;
        for round in 0..2000 {
            let mut text = String::new();
            for _ in 0..round % 23 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            let d = Doc::parse(&text);
            let mut expect = Vec::new();
            let mut start = 0;
            for (i, b) in text.bytes().enumerate() {
                if b == b'\n' {
                    expect.push(&text[start..i + 1]);
                    start = i + 1;
                }
            }
            if start < text.len() {
                expect.push(&text[start..]);
            }
            let got: Vec<&str> = (0..d.len()).map(|i| d.line_with_eol(i)).collect();
            let each: Vec<&str> = (0..d.len()).map(|i| d.line(i)).collect();
            assert_eq!(d.lines().collect::<Vec<_>>(), each, "{text:?}");
            assert_eq!(got, expect, "{text:?}");
            for (i, line) in got.iter().enumerate() {
                let crlf = line.ends_with("\r\n");
                assert_eq!(d.eol(i) == Eol::CrLf, crlf, "{text:?}");
                assert_eq!(d.eol(i) == Eol::None, !line.ends_with('\n'), "{text:?}");
            }
            let crlf = got.iter().filter(|l| l.ends_with("\r\n")).count();
            let lf = got.iter().filter(|l| l.ends_with('\n')).count() - crlf;
            let dominant = if crlf > lf { Eol::CrLf } else { Eol::Lf };
            assert_eq!(d.dominant, dominant, "{text:?}");
        }
    }

    #[test]
    fn dense_and_sparse_newlines_split_like_a_scan() {
        let long = "x".repeat(200);
        // Over SPLIT_BYTES, so split in halves; CRLF lines on both sides of the cut.
        let big = "abc\r\n\n".repeat(SPLIT_BYTES / 3);
        let d = Doc::parse(&big);
        assert_eq!(d.dominant, Eol::Lf);
        let crlf = format!("{big}\r\n\r\n");
        assert_eq!(Doc::parse(&crlf).dominant, Eol::CrLf);
        for text in [
            big.clone(),
            format!("{big}tail"),
            "\n".repeat(1000),
            "\r\n".repeat(300),
            format!("a\n{long}\n\n{long}"),
            format!("{}\n", "ab\n".repeat(100)),
        ] {
            let d = Doc::parse(&text);
            let expect: Vec<&str> = text.split_inclusive('\n').collect();
            let got: Vec<&str> = (0..d.len()).map(|i| d.line_with_eol(i)).collect();
            assert_eq!(got, expect);
        }
    }

    #[test]
    fn canonical_hash_is_the_hash_of_the_canonical_form() {
        for line in [
            "  a  b\t c ",
            "plain",
            "x\r",
            "\u{201c}q\u{201d}  x",
            "",
            " \t ",
            "a\u{a0}b",
        ] {
            assert_eq!(
                hash_form(Form::Canon, line),
                hash_str(&canonical(line)),
                "{line:?}"
            );
        }
    }

    #[test]
    fn dominant_ending_and_bom() {
        let d = Doc::parse("\u{feff}a\r\nb\r\nc\n");
        assert!(d.bom);
        assert_eq!(d.line(0), "a");
        assert_eq!(d.dominant, Eol::CrLf);
        assert!(d.final_newline);
        assert!(Doc::parse("").final_newline);
    }

    #[test]
    fn canonical_folds_typography_and_whitespace() {
        assert_eq!(
            canonical("  let s = \u{201c}it\u{2019}s\u{201d};\t// a\u{00a0}\u{2014} b "),
            "let s = \"it's\"; // a - b"
        );
        assert_eq!(canonical("x\u{200b}y"), "xy");
        assert_eq!(canonical("e\u{301}"), "\u{e9}");
        assert_eq!(canonical("a  \t b"), "a b");
        assert_eq!(canonical("ab"), "ab");
    }

    #[test]
    fn forms_compare_progressively_looser() {
        assert_eq!(
            hash_form(Form::TrimEnd, "a  "),
            hash_form(Form::TrimEnd, "a")
        );
        assert_ne!(hash_form(Form::Raw, "a  "), hash_form(Form::Raw, "a"));
        assert_eq!(hash_form(Form::Trim, "  a"), hash_form(Form::Trim, "\ta"));
        assert_ne!(
            hash_form(Form::TrimEnd, "  a"),
            hash_form(Form::TrimEnd, "a")
        );
        assert_eq!(hash_form(Form::Raw, "a\r"), hash_form(Form::Raw, "a"));
    }

    #[test]
    fn indent_width_counts_tab_stops() {
        assert_eq!(indent_width("\t  ", 4), 6);
        assert_eq!(indent_width("  \t", 4), 4);
        assert_eq!(indent_width("    ", 8), 4);
    }
}
