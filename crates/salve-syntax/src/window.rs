//! The fast path of the check for Python: parse only the statements an edit touched.
//!
//! A one-line edit of a 3,500-line file should not cost a parse of 3,500 lines. The text
//! before and after an edit share a prefix and a suffix; the edit lies between. This module
//! widens the edit to a **window** of whole statements at one indentation and parses the
//! window alone. When that parse is clean, the check answers [`Verdict::Clean`](crate::Verdict)
//! without parsing the file; in every other case it says why ([`Fallback`]) and the full check
//! runs, which keeps the last word (the error's message and line are always the full parse's).
//!
//! # The window
//! Lines are read by a conservative lexer (`pylex`) that tells which physical lines start a
//! logical line, outside every string, bracket and backslash continuation.
//! - The changed lines: from the first line that differs to the last, in both texts.
//! - `m`: the least indentation of a logical line among the changed lines of either text (and
//!   of the logical line a changed line continues, when the first one is inside a string or a
//!   bracket).
//! - The window starts at `w`, the last unchanged logical line before the change whose
//!   indentation `k` is at most `m`. It is moved further up while it starts with a clause
//!   keyword (`else`, `elif`, `except`, `finally`, `case`) or follows a decorator, to the
//!   statement the clause belongs to or to the first decorator. No such line: the file's start,
//!   with `k = 0`.
//! - The window ends before `e`, the first logical line after the change whose indentation is
//!   at most `k`, unless it is a clause at exactly `k` (the clause of a statement in the
//!   window: it joins the window). No such line: the end of the file. When `e` is a clause less
//!   deep than `k` (an `else:` after the last line of an `if` body), it belongs to a statement
//!   above the window: the window is chosen again with `m` no deeper than that clause, so that
//!   it holds the whole statement; after a few such widenings it gives up ([`Fallback::ClauseAfter`]).
//!   Any doubt of the lexer gives up.
//! - The window is the text after the edit from `w` to `e`, parsed alone (after an `if 1:` line
//!   when `k > 0`, so that its statements form a block), with the crate's own rules
//!   (indentation, typographic identifiers) applied to it.
//!
//! # Why a clean window proves a clean file
//! The verdict only needs care when the text before was clean (otherwise the check never says
//! [`Introduced`](crate::Verdict::Introduced)), so let it be. Write before = P·Wb·S and
//! after = P·Wa·S, with P the lines up to `w`, S the lines from `e` (the same lines in both
//! texts; the lexer reads them in both and must find `e` a logical line start in both).
//! 1. P is the same text, so it reads the same way up to `w`, and the lexer is outside every
//!    string and bracket at `w` (it says so only when sure). In the clean text before, `w` is a
//!    logical line at indentation `k` that is neither a clause nor a decorated definition: it
//!    starts a statement in a block whose statements sit at `k` (the module when `k = 0`).
//! 2. Every logical line of Wb and Wa after `w` is at least `k` deep (the changed ones by the
//!    choice of `m`, the unchanged ones by the choice of `w` and `e`, checked by the lexer in
//!    both texts), and `e` is at most `k` deep and not a clause of the window's last statement.
//!    So Wb is a run of whole statements of that block, and so is Wa: its parse as a block at
//!    `k` is clean.
//! 3. Python's tokens are made line by line from the lexer state at the line's start and the
//!    stack of open indentations. At `e` both texts are outside every string and bracket, and
//!    the indentations on the stack that are at most `k` were pushed in P, the same in both;
//!    the deeper ones, pushed inside the window, are all closed at `e`. So S yields the same
//!    tokens after Wa as after Wb, and the parser reaches S in the same state: after whole
//!    statements of the block at `k`.
//! 4. The grammar lets any run of statements stand in a block. So after = P·Wa·S parses like
//!    before with one run of statements exchanged for another that parses: it parses. The rules
//!    hold too: the block at `k` keeps its indentation (Wa's statements sit at `k`, as the
//!    window's parse checked), it keeps a statement (`w`), blocks inside Wa were checked in the
//!    window, and blocks in P and S are unchanged.
//!
//! The window can be as large as the statement around the edit (a whole class when its `def`
//! line is edited), never the whole file: that falls back, as the parse would cost no less.

use crate::parse::{error_in, parse};
use crate::pylex::{Lexer, Line, Start};
use crate::Language;

/// Why the window could not answer, and the full check must.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The window is made for Python only.
    NotPython,
    /// The texts are equal: nothing to place a window around.
    Unchanged,
    /// The lexer met something it is not sure how Python reads.
    Lexer,
    /// A line the window needed to measure is indented with a tab or a form feed.
    Tabs,
    /// The line after the window is still a clause (`else`, `except`, ...) of a statement that
    /// began before the window after a few widenings.
    ClauseAfter,
    /// The window's end is not a logical line's start in both texts, or the text before has
    /// a statement inside the window less deep than its start.
    Bounds,
    /// The window would hold the whole file.
    WholeFile,
    /// The window holds no statement.
    NoStatement,
    /// The window's own parse found an error (or the parser failed): the full check tells
    /// whether and where the edit introduced one.
    WindowError,
}

/// The lines of a text: each one's start, in bytes.
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Lines<'t> {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        if !text.is_empty() {
            starts.push(0);
        }
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(i, c)| c == b'\n' && i + 1 < text.len())
                .map(|(i, _)| i + 1),
        );
        Lines { text, starts }
    }

    fn count(&self) -> usize {
        self.starts.len()
    }

    /// Where line `i` starts (the text's length for `i` past the last line).
    fn start(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or(self.text.len())
    }

    fn line(&self, i: usize) -> &'t [u8] {
        let bytes = self.text.as_bytes();
        bytes.get(self.start(i)..self.start(i + 1)).unwrap_or(&[])
    }

    /// The line holding byte `at`; at the end of the text, the line count when the text ends
    /// with a line break, else its last line.
    fn index(&self, at: usize) -> usize {
        if at >= self.text.len() {
            let open = !self.text.is_empty() && !self.text.ends_with('\n');
            return self.count() - usize::from(open);
        }
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// The index of line start `at` (or the line count for the end of the text).
    fn index_of_start(&self, at: usize) -> usize {
        if at >= self.text.len() {
            return self.count();
        }
        self.index(at)
    }
}

/// Ok when the edit from `before` to `after` leaves a Python file clean, proven by parsing the
/// window of statements around it (see the module docs); otherwise why not.
pub fn check_window(language: Language, before: &str, after: &str) -> Result<(), Fallback> {
    if language != Language::Python {
        return Err(Fallback::NotPython);
    }
    if before == after {
        return Err(Fallback::Unchanged);
    }
    let (lb, la) = (Lines::new(before), Lines::new(after));
    let edit = Edit::between(&lb, &la);
    let window = Window::find(&lb, &la, &edit)?;
    let start = la.start(window.start);
    let body = after
        .get(start..la.start(window.end))
        .ok_or(Fallback::Bounds)?;
    let text = if window.k > 0 {
        format!("if 1:\n{body}")
    } else {
        body.to_owned()
    };
    let tree = parse(Language::Python, &text, None).map_err(|_| Fallback::WindowError)?;
    match error_in(Language::Python, &tree, &text) {
        None => Ok(()),
        Some(_) => Err(Fallback::WindowError),
    }
}

/// The changed lines: `first..before_end` in the text before, `first..after_end` after.
struct Edit {
    first: usize,
    before_end: usize,
    after_end: usize,
}

impl Edit {
    fn between(lb: &Lines<'_>, la: &Lines<'_>) -> Edit {
        let (b, a) = (lb.text.as_bytes(), la.text.as_bytes());
        let (prefix, suffix) = crate::reuse::common_ends(b, a);
        let (sb, sa) = (b.len() - suffix, a.len() - suffix);
        let at_line = |t: &[u8], s: usize| s == 0 || t.get(s - 1) == Some(&b'\n');
        // The first line start in the common suffix, in both texts.
        let before_start = if at_line(b, sb) && at_line(a, sa) {
            sb
        } else {
            b[sb..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |i| sb + i + 1)
        };
        let after_start = before_start - sb + sa;
        Edit {
            first: lb.index(prefix),
            before_end: lb.index_of_start(before_start),
            after_end: la.index_of_start(after_start),
        }
    }
}

/// The window: lines `start..end` of the text after (and `start..end - shift` before), whose
/// statements sit at indentation `k`.
struct Window {
    start: usize,
    end: usize,
    k: usize,
}

fn indent(start: Start) -> Result<usize, Fallback> {
    start.indent.ok_or(Fallback::Tabs)
}

impl Window {
    fn find(lb: &Lines<'_>, la: &Lines<'_>, edit: &Edit) -> Result<Window, Fallback> {
        let mut lexer = Lexer::new();
        let mut prefix = Vec::with_capacity(edit.first);
        for i in 0..edit.first {
            prefix.push(lexer.line(lb.line(i)).map_err(|_| Fallback::Lexer)?);
        }
        let continued = !lexer.is_clean();
        let (mut before, mut after) = (lexer, lexer);
        let mut m = usize::MAX;
        let mut statements = false;
        for i in edit.first..edit.before_end {
            if let Line::Logical(s) = before.line(lb.line(i)).map_err(|_| Fallback::Lexer)? {
                m = m.min(indent(s)?);
            }
        }
        for i in edit.first..edit.after_end {
            if let Line::Logical(s) = after.line(la.line(i)).map_err(|_| Fallback::Lexer)? {
                m = m.min(indent(s)?);
                statements = true;
            }
        }
        if continued {
            // The first changed line continues a logical line: that line is changed too.
            let (_, s) = last_logical(&prefix, edit.first).ok_or(Fallback::Lexer)?;
            m = m.min(indent(s)?);
        }
        for _ in 0..WIDENINGS {
            let start = window_start(&prefix, edit.first, m)?;
            let k = match start {
                Some(w) => match prefix.get(w) {
                    Some(Line::Logical(s)) => indent(*s)?,
                    _ => return Err(Fallback::Bounds),
                },
                None => 0,
            };
            let (end, tail) = match window_end(la, edit, k, before, after)? {
                End::At(end, tail) => (end, tail),
                // A clause of a statement above the window: widen the window to hold that
                // statement whole (its first line is at most that deep).
                End::Clause(depth) => {
                    m = depth;
                    continue;
                }
            };
            let statements = statements
                || tail
                || start.is_some()
                || prefix.iter().any(|l| matches!(l, Line::Logical(_)));
            if start.is_none() && end == la.count() {
                return Err(Fallback::WholeFile);
            }
            if !statements {
                return Err(Fallback::NoStatement);
            }
            return Ok(Window {
                start: start.unwrap_or(0),
                end,
                k,
            });
        }
        Err(Fallback::ClauseAfter)
    }
}

/// How many times a window is widened to hold the statement whose clause follows it.
const WIDENINGS: usize = 4;

/// Where [`window_end`] stopped.
enum End {
    /// Before line `.0`; `.1` when the lines read hold a statement.
    At(usize, bool),
    /// At a clause (`else`, ...) of a statement above the window, this deep.
    Clause(usize),
}

/// The last logical line before line `before`, with its index.
fn last_logical(prefix: &[Line], before: usize) -> Option<(usize, Start)> {
    prefix[..before]
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, l)| match l {
            Line::Logical(s) => Some((i, *s)),
            _ => None,
        })
}

/// The last logical line before line `before` at most `limit` deep.
fn last_at_most(prefix: &[Line], before: usize, limit: usize) -> Result<Option<usize>, Fallback> {
    for (i, l) in prefix[..before].iter().enumerate().rev() {
        if let Line::Logical(s) = l {
            if indent(*s)? <= limit {
                return Ok(Some(i));
            }
        }
    }
    Ok(None)
}

/// `w` of the module docs: `None` for the file's start.
fn window_start(prefix: &[Line], first: usize, m: usize) -> Result<Option<usize>, Fallback> {
    let mut w = last_at_most(prefix, first, m)?;
    while let Some(i) = w {
        let Some(Line::Logical(s)) = prefix.get(i).copied() else {
            return Err(Fallback::Bounds);
        };
        let decorated = last_logical(prefix, i).is_some_and(|(_, p)| p.decorator);
        if !s.clause && !decorated {
            break;
        }
        // Up to the statement this clause belongs to, or to the decorator.
        w = last_at_most(prefix, i, indent(s)?)?;
    }
    Ok(w)
}

/// `e` of the module docs, read on from the changed lines by both texts' lexers.
fn window_end(
    la: &Lines<'_>,
    edit: &Edit,
    k: usize,
    mut before: Lexer,
    mut after: Lexer,
) -> Result<End, Fallback> {
    let mut statements = false;
    for j in edit.after_end..la.count() {
        let line = la.line(j);
        let seen_after = after.line(line).map_err(|_| Fallback::Lexer)?;
        let seen_before = before.line(line).map_err(|_| Fallback::Lexer)?;
        if let Line::Logical(s) = seen_after {
            let depth = indent(s)?;
            if depth <= k && !(s.clause && depth == k) {
                if s.clause {
                    return Ok(End::Clause(depth));
                }
                if seen_before != seen_after {
                    return Err(Fallback::Bounds);
                }
                return Ok(End::At(j, statements));
            }
            statements = true;
        }
        if let Line::Logical(s) = seen_before {
            if indent(s)? < k {
                return Err(Fallback::Bounds);
            }
        }
    }
    if !(before.is_clean() && after.is_clean()) {
        return Err(Fallback::Bounds);
    }
    Ok(End::At(la.count(), statements))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_indexed_by_their_starts() {
        let l = Lines::new("a\nbc\nd");
        assert_eq!(l.count(), 3);
        assert_eq!(
            (l.index(0), l.index(2), l.index(4), l.index(5)),
            (0, 1, 1, 2)
        );
        assert_eq!((l.index(6), l.index_of_start(6)), (2, 3));
        assert_eq!(l.line(1), b"bc\n");
        let l = Lines::new("a\n");
        assert_eq!((l.count(), l.index(2)), (1, 1));
    }

    #[test]
    fn the_edit_covers_the_changed_lines() {
        let (b, a) = ("x\ny\nz\n", "x\nY\nz\n");
        let e = Edit::between(&Lines::new(b), &Lines::new(a));
        assert_eq!((e.first, e.before_end, e.after_end), (1, 2, 2));
        // A deleted line.
        let (b, a) = ("a\nb\nc\n", "a\nc\n");
        let e = Edit::between(&Lines::new(b), &Lines::new(a));
        assert_eq!((e.first, e.before_end, e.after_end), (1, 2, 1));
        // An inserted line, and text appended to the last line.
        let (b, a) = ("a\nc\n", "a\nb\nc\n");
        let e = Edit::between(&Lines::new(b), &Lines::new(a));
        assert_eq!((e.first, e.before_end, e.after_end), (1, 1, 2));
        let (b, a) = ("a\nc", "a\ncd");
        let e = Edit::between(&Lines::new(b), &Lines::new(a));
        assert_eq!((e.first, e.before_end, e.after_end), (1, 2, 2));
        let (b, a) = ("a", "ab");
        let e = Edit::between(&Lines::new(b), &Lines::new(a));
        assert_eq!((e.first, e.before_end, e.after_end), (0, 1, 1));
    }
}
