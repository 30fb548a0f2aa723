//! The body of a diff hunk (unified, git or Codex): prefixed lines, read leniently.
//!
//! Models damage hunk bodies in a few typical ways, repaired here only where the reading is
//! unambiguous: a blank context line loses its leading space, an added line loses its `+`, an
//! elision line (`// ...`) is written without a prefix, and header counts are wrong. Where a line
//! cannot be read safely the body is marked malformed instead of guessed.

use super::cx::Source;
use crate::edit::{HunkLine, LineKind};
use crate::text::Trim as _;

/// A function telling whether line `i` (of a region ending at `end`) ends the body.
pub(crate) type Terminator = fn(&Source, usize, usize) -> bool;

/// A hunk body as read.
#[derive(Debug, Default)]
pub(crate) struct Body {
    pub lines: Vec<HunkLine>,
    pub maybe_added: Vec<usize>,
    pub old_no_newline: bool,
    pub new_no_newline: bool,
    /// The line after the body.
    pub next: usize,
    /// Only blank lines (or nothing) follow the body in its region.
    pub reached_end: bool,
    /// Pre-image and post-image line counts of the body.
    pub old: usize,
    pub new: usize,
    pub malformed: Option<String>,
    pub blanks_restored: usize,
    /// How many of the last lines are blank lines taken as context only because the header
    /// counts asked for more lines (see [`crate::edit::Hunk::padded_tail`]).
    pub padded: usize,
    pub plus_recovered: usize,
    pub elisions: usize,
}

impl Body {
    fn push(&mut self, kind: LineKind, text: &str) {
        match kind {
            LineKind::Context => {
                self.old += 1;
                self.new += 1;
            }
            LineKind::Remove => self.old += 1,
            LineKind::Add => self.new += 1,
        }
        self.lines.push(HunkLine::new(kind, text));
    }

    /// True when the body holds at least what the header counts promise.
    fn satisfies(&self, counts: Option<(usize, usize)>) -> bool {
        counts.is_some_and(|(o, n)| self.old >= o && self.new >= n)
    }

    /// The last line is an added or removed line (a cut inside a change).
    pub(crate) fn ends_on_change(&self) -> bool {
        self.lines
            .last()
            .is_some_and(|l| l.kind != LineKind::Context)
    }
}

/// True for a line that continues a body: prefixed with a space, `+`, `-` or `\`.
fn is_prefixed(line: &str) -> bool {
    matches!(line.as_bytes().first(), Some(b' ' | b'+' | b'-' | b'\\'))
}

/// True for a line with no content at all, or whitespace that does not start with a space
/// (a space would be a context prefix).
fn is_blank(line: &str) -> bool {
    line.trim_ws().is_empty() && !line.starts_with(' ')
}

/// Reads a body from line `start` up to `end` or the first line `term` accepts. `counts` are
/// the header's (old, new) counts when it had any; they only decide ambiguous endings.
pub(crate) fn read_body(
    src: &Source,
    start: usize,
    end: usize,
    counts: Option<(usize, usize)>,
    term: Terminator,
) -> Body {
    let mut b = Body::default();
    // Which context lines were written with a real leading space (candidates for maybe_added).
    let mut spaced: Vec<bool> = Vec::new();
    let mut i = start;
    while i < end {
        if term(src, i, end) {
            break;
        }
        let line = src.line(i);
        match line.as_bytes().first() {
            Some(b' ') => {
                b.push(LineKind::Context, line.get(1..).unwrap_or(""));
                spaced.push(true);
            }
            Some(b'+') => {
                b.push(LineKind::Add, line.get(1..).unwrap_or(""));
                spaced.push(false);
            }
            Some(b'-') => {
                b.push(LineKind::Remove, line.get(1..).unwrap_or(""));
                spaced.push(false);
            }
            Some(b'\\') => {
                match b.lines.last().map(|l| l.kind) {
                    Some(LineKind::Remove) => b.old_no_newline = true,
                    Some(LineKind::Add) => b.new_no_newline = true,
                    Some(LineKind::Context) => {
                        b.old_no_newline = true;
                        b.new_no_newline = true;
                    }
                    None => {}
                }
                i += 1;
                continue;
            }
            _ if is_blank(line) => {
                let j = (i..end).find(|&k| !is_blank(src.line(k))).unwrap_or(end);
                let run = j - i;
                let next = src.line(j);
                // After the counts are met, a blank line and a `-` line is more likely prose
                // (a Markdown list) than a body that is longer than its header says.
                let goes_on = j < end
                    && !term(src, j, end)
                    && is_prefixed(next)
                    && !(b.satisfies(counts) && next.starts_with('-'))
                    && !bullets_past_counts(src, &b, counts, run, j, end);
                let take = if goes_on {
                    run
                } else {
                    // Trailing blank lines are context only as far as the counts ask for them.
                    counts.map_or(0, |(o, n)| {
                        o.saturating_sub(b.old)
                            .min(n.saturating_sub(b.new))
                            .min(run)
                    })
                };
                for k in i..i + take {
                    b.push(LineKind::Context, src.line(k).trim_end_matches([' ', '\t']));
                    spaced.push(false);
                }
                b.blanks_restored += take;
                i += take;
                if goes_on {
                    continue;
                }
                b.padded = take;
                break;
            }
            _ => {
                let next = (i + 1 < end && !term(src, i + 1, end)).then(|| src.line(i + 1));
                let prev_add = b.lines.last().is_some_and(|l| l.kind == LineKind::Add);
                // A marker of another format among a hunk's lines reads as syntax and as a
                // line that lost its prefix: the two readings collide, so the hunk is refused.
                if super::markers::is_marker_line(line) && next.is_some_and(is_prefixed) {
                    b.malformed = Some(format!(
                        "line {}: the marker {:?} stands without a prefix among a hunk's lines",
                        i + 1,
                        truncate(line.trim_ws(), 60)
                    ));
                    break;
                }
                if crate::placeholder::is_elision(line) && next.is_some_and(is_prefixed) {
                    b.push(LineKind::Context, line);
                    spaced.push(false);
                    b.elisions += 1;
                } else if prev_add && next.is_some_and(|n| n.starts_with('+')) {
                    b.push(LineKind::Add, line);
                    spaced.push(false);
                    b.plus_recovered += 1;
                } else {
                    if next.is_some_and(is_prefixed) && !b.satisfies(counts) {
                        b.malformed = Some(format!(
                            "line {}: {:?} has no ' ', '+' or '-' prefix inside a hunk",
                            i + 1,
                            truncate(line, 60)
                        ));
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    b.next = i;
    b.reached_end = (i..end).all(|k| src.line(k).trim_ws().is_empty());
    for k in 1..b.lines.len().saturating_sub(1) {
        let l = &b.lines[k];
        let lost = match l.kind {
            LineKind::Context => spaced.get(k) == Some(&true) && !l.text.is_empty(),
            // A `-` line among added lines: an added line that starts with `-` (a Markdown
            // bullet, a negative number) and lost its `+`.
            LineKind::Remove => !l.text.trim_ws().is_empty(),
            LineKind::Add => false,
        };
        if lost && b.lines[k - 1].kind == LineKind::Add && b.lines[k + 1].kind == LineKind::Add {
            b.maybe_added.push(k);
        }
    }
    b
}

/// Whether the `-` lines after a blank run at line `j` are prose (a Markdown list after an
/// over-counted hunk) rather than removed lines: they run to the end of the region or to an
/// unprefixed line, and reading them (with the blank run as context) would remove more lines
/// than the header says. A header that over-counts leaves room for a few lines; a list that
/// does not fit in that room is not the body going on.
fn bullets_past_counts(
    src: &Source,
    b: &Body,
    counts: Option<(usize, usize)>,
    run: usize,
    j: usize,
    end: usize,
) -> bool {
    let Some((o, _)) = counts else {
        return false;
    };
    let dashes = (j..end)
        .take_while(|&k| src.line(k).starts_with('-'))
        .count();
    let after = j + dashes;
    let stops = after >= end || !is_prefixed(src.line(after));
    dashes > 0 && stops && b.old + run + dashes > o
}

/// The first `n` characters of `s`, for messages.
pub(crate) fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use LineKind::{Add, Context, Remove};

    fn never(_: &Source, _: usize, _: usize) -> bool {
        false
    }

    fn at(src: &Source, i: usize, _: usize) -> bool {
        src.line(i).starts_with("@@")
    }

    fn read(text: &str, counts: Option<(usize, usize)>) -> Body {
        let src = Source::new(text);
        read_body(&src, 0, src.len(), counts, at)
    }

    fn kinds(b: &Body) -> Vec<(LineKind, &str)> {
        b.lines.iter().map(|l| (l.kind, l.text.as_str())).collect()
    }

    #[test]
    fn prefixed_lines() {
        let b = read(" a\n-b\n+c\n\\ No newline at end of file\n", Some((2, 2)));
        assert_eq!(kinds(&b), vec![(Context, "a"), (Remove, "b"), (Add, "c")]);
        assert!(b.new_no_newline && !b.old_no_newline);
        assert!(b.reached_end);
        assert_eq!((b.old, b.new), (2, 2));
    }

    #[test]
    fn inner_blank_is_context_trailing_blank_only_by_counts() {
        let b = read(" a\n\n+b\n\n@@ -9 +9 @@\n", None);
        assert_eq!(kinds(&b), vec![(Context, "a"), (Context, ""), (Add, "b")]);
        assert_eq!(b.blanks_restored, 1);
        assert_eq!(b.next, 3);
        let b = read(" a\n+b\n\n@@ -9 +9 @@\n", Some((2, 3)));
        assert_eq!(kinds(&b), vec![(Context, "a"), (Add, "b"), (Context, "")]);
        assert_eq!(b.padded, 1);
    }

    #[test]
    fn only_blanks_taken_for_the_counts_are_padding() {
        // An over-counted last hunk, then the blank line before prose.
        let b = read(" a\n-b\n\nThat is all.\n", Some((3, 2)));
        assert_eq!(
            kinds(&b),
            vec![(Context, "a"), (Remove, "b"), (Context, "")]
        );
        assert_eq!(b.padded, 1);
        // A blank run that the body goes on after is context of its own.
        let b = read(" a\n\n-b\n", Some((3, 2)));
        assert_eq!(b.padded, 0);
    }

    #[test]
    fn forgotten_plus_between_added_lines() {
        let b = read(" a\n+b\nc\n+d\n x\n", None);
        assert_eq!(
            kinds(&b),
            vec![
                (Context, "a"),
                (Add, "b"),
                (Add, "c"),
                (Add, "d"),
                (Context, "x")
            ]
        );
        assert_eq!(b.plus_recovered, 1);
    }

    #[test]
    fn spaced_context_between_adds_is_maybe_added() {
        let b = read("+a\n    b\n+c\n", None);
        assert_eq!(kinds(&b), vec![(Add, "a"), (Context, "   b"), (Add, "c")]);
        assert_eq!(b.maybe_added, vec![1]);
    }

    #[test]
    fn removed_line_between_adds_is_maybe_added() {
        let b = read(" a\n+b\n- item\n+c\n-d\n d\n", None);
        assert_eq!(
            kinds(&b),
            vec![
                (Context, "a"),
                (Add, "b"),
                (Remove, " item"),
                (Add, "c"),
                (Remove, "d"),
                (Context, "d")
            ]
        );
        assert_eq!(b.maybe_added, vec![2]);
    }

    #[test]
    fn unprefixed_elision_is_context() {
        let b = read(" a\n// ...\n b\n-c\n", None);
        assert_eq!(
            kinds(&b),
            vec![
                (Context, "a"),
                (Context, "// ..."),
                (Context, "b"),
                (Remove, "c")
            ]
        );
        assert_eq!(b.elisions, 1);
    }

    #[test]
    fn leading_unprefixed_elision_is_context() {
        let b = read("...\n fn a() {\n-x\n+y\n", None);
        assert_eq!(
            kinds(&b),
            vec![
                (Context, "..."),
                (Context, "fn a() {"),
                (Remove, "x"),
                (Add, "y")
            ]
        );
    }

    #[test]
    fn unprefixed_line_mid_hunk_is_malformed() {
        let b = read(" a\n-b\nstray\n c\n", Some((3, 2)));
        assert!(b.malformed.is_some());
        assert_eq!(b.next, 2);
    }

    #[test]
    fn unprefixed_first_line_is_malformed() {
        // Context written without its leading space: cannot tell it from a lost `-`.
        let b = read("fn main() {\n-    a();\n+    b();\n}\n", Some((3, 3)));
        assert!(b.malformed.is_some());
        assert!(b.lines.is_empty());
    }

    #[test]
    fn prose_after_body_ends_it() {
        let b = read(" a\n-b\n+c\nThat is all.\n", Some((2, 2)));
        assert_eq!(b.lines.len(), 3);
        assert!(b.malformed.is_none());
        assert!(!b.reached_end);
        // A Markdown list after a complete body is prose.
        let b = read(" a\n-b\n\n- note\n", Some((2, 1)));
        assert_eq!(b.lines.len(), 2);
    }

    #[test]
    fn body_longer_than_counts_keeps_going() {
        let b = read(" a\n-b\n+c\n d\n", Some((2, 2)));
        assert_eq!(b.lines.len(), 4);
    }

    #[test]
    fn terminator_stops() {
        let src = Source::new(" a\n+b\n");
        let b = read_body(&src, 0, src.len(), None, never);
        assert_eq!(b.lines.len(), 2);
        let b = read(" a\n@@\n+b\n", None);
        assert_eq!(b.lines.len(), 1);
        assert_eq!(b.next, 1);
    }
}
