//! Signs that a reply was cut, read where the reply ends. A reply may stop anywhere; a cut at
//! the boundary between two blocks leaves a shorter, complete reply, but a cut inside an edit's
//! structure leaves a sign, which refuses the reply as `Truncated`: a reply that stops with no
//! newline inside a wrapper holding an edit, on a path line, or on a piece of edit syntax (a
//! header with nothing after it, the start of a marker or of a fence). The format readers read
//! their own signs (an unclosed block, an unclosed JSON value); a diff hunk's are here, read by
//! `parse/diff.rs`.

use super::body::Body;
use super::cx::{Cx, Region, RegionState};
use super::paths;
use crate::edit::{IssueKind, LineKind};

/// Lines that open an edit structure: with nothing after them, the structure was cut off.
const OPENERS: [&str; 8] = [
    "@@",
    "--- ",
    "+++ ",
    "diff --git ",
    "*** Begin Patch",
    "*** Update File:",
    "*** Add File:",
    "<<<<<<< SEARCH",
];

/// Lines that close one: only their start means the reply was cut inside them.
const CLOSERS: [&str; 8] = [
    "```",
    "~~~",
    ">>>>>>> REPLACE",
    "=======",
    "*** End Patch",
    "*** End of File",
    "\\ No newline at end of file",
    "<<<AI_DIFF_END>>>",
];

/// Markdown rules, complete lines that only look like the start of a diff header.
const RULES: [&str; 3] = ["---", "***", "___"];

/// A reply that stops with no newline inside a wrapper that never closes was cut there: an edit
/// before the cut may be complete, but what followed it in the reply is lost, and the wrapper's
/// own content may be an edit too short to be read as one (`{"file_path": "sr`). So was a reply
/// that ends inside a fence holding a JSON value that never closes, newline or not. Refused
/// when the reply holds an edit at all (`found_before` counts what was found before the
/// wrapper).
pub(crate) fn stops_inside(
    cx: &mut Cx,
    state: RegionState,
    found_before: usize,
    hint: Option<&str>,
    i: usize,
) {
    let reported = cx.issues.iter().any(|i| i.kind == IssueKind::Truncated);
    // A JSON value in a fence is no block whose close was forgotten: if the fence never
    // closes, the value was cut, even at a line's end.
    let json = cx
        .src
        .next_nonblank(i + 1, cx.src.len())
        .is_some_and(|k| cx.src.line(k).trim_start().starts_with(['{', '[']));
    if state != RegionState::Open
        || (cx.src.ends_with_newline && !json)
        || (cx.found() == 0 && found_before == 0)
        || reported
    {
        return;
    }
    let path = cx
        .edits
        .last()
        .map(|e| e.path.clone())
        .or(hint.map(str::to_owned));
    cx.issue(
        IssueKind::Truncated,
        path.as_deref(),
        format!(
            "the reply stops, with no newline, inside the block opened at line {} and never closed",
            i + 1
        ),
    );
}

/// A reply that stops on a line that is only a strict path (not an item of a list of paths)
/// stops where the block for that path was to begin: the reply was cut there, and a block it
/// held is lost.
pub(crate) fn dangling_path(cx: &mut Cx, r: &Region, pending: Option<&paths::PathLine>) {
    if r.end < cx.src.len() || r.state == RegionState::Closed {
        return;
    }
    let Some(last) = (0..cx.src.len())
        .rev()
        .find(|&k| !cx.src.line(k).trim().is_empty())
    else {
        return;
    };
    let Some(p) = pending.filter(|p| p.strict) else {
        return;
    };
    let line = cx.src.line(last).trim();
    let listed = |l: &str| {
        ["- ", "* ", "+ "].iter().any(|b| l.starts_with(b))
            || l.split_once(". ")
                .is_some_and(|(n, _)| n.bytes().all(|c| c.is_ascii_digit()))
    };
    let after_path = (0..last)
        .rev()
        .find(|&k| !cx.src.line(k).trim().is_empty())
        .is_some_and(|k| paths::path_candidate(cx.src.line(k)).is_some());
    if listed(line) || after_path {
        return;
    }
    if paths::path_candidate(line).is_some_and(|q| q.path == p.path) {
        cx.issue(
            IssueKind::Truncated,
            Some(&p.path),
            format!(
                "line {}: the reply stops on the path line {:?}, before the edit it names",
                last + 1,
                p.path
            ),
        );
    }
}

/// A reply holding an edit that stops, with no newline, on a line that is a piece of edit
/// syntax: an opener with nothing after it (`@@`, `--- a/x`, `<<<<<<< SEARCH`), or only the
/// start of an opener or a closer (`@`, `` ` ``, `>>>>>>> REP`).
pub(crate) fn stops_mid_syntax(cx: &mut Cx) {
    if cx.src.ends_with_newline || cx.found() == 0 {
        return;
    }
    let Some(k) = cx.src.len().checked_sub(1) else {
        return;
    };
    let t = cx.src.line(k).trim();
    if t.is_empty() || RULES.contains(&t) {
        return;
    }
    let opener = OPENERS
        .iter()
        .any(|o| t.starts_with(o) || o.starts_with(t) || t == o.trim_end());
    let closer = CLOSERS
        .iter()
        .any(|c| c.len() > t.len() && c.starts_with(t));
    if opener || closer {
        let path = cx.edits.last().map(|e| e.path.clone());
        cx.issue(
            IssueKind::Truncated,
            path.as_deref(),
            format!(
                "line {}: the reply stops, with no newline, on {t:?}, a piece of edit syntax: it was cut there",
                k + 1
            ),
        );
    }
}

// The signs of a cut inside a diff hunk, read by `parse/diff.rs`.

/// True when the reply was evidently cut inside this (last) hunk body.
///
/// Header counts are wrong often enough in complete replies that a body a line or three short
/// of them proves nothing: recounting is right when the hunk is followed by another header, a
/// closing fence or prose. At the very end of the reply a short body means the reply was cut
/// when the evidence allows it:
/// - the reply ends inside an unclosed wrapper with the hunk (then the hunk may be complete,
///   but what followed it, up to the wrapper's close, is lost), or with unprefixed text glued
///   to the hunk's last line that runs to the end ([`glued_tail`]);
/// - a header the reply ends on, with no body or only context lines after it: the change the
///   hunk opens was cut off;
/// - a bare reply ends inside the body on a changed line while the body is short on both sides
///   (or on one side, when the reply stops in the middle of a line): short on one side only,
///   with a newline, is a header that miscounts by a line as often (the corpus holds complete
///   replies so);
/// - a bare reply stops on a line that is only a prefix (` `, `+`, `-`, with no newline), or
///   on the start of a `\ No newline at end of file` line: a line cut right after its first
///   characters (a complete reply stripped of its last newline cannot end on a bare prefix:
///   stripping takes a lone space, and a hunk does not end on an added blank line written
///   without its newline);
/// - the body holds at most half the lines its header counts on a side (two or more missing),
///   and is not longer than the header on the other side: a count twice too large is no
///   miscount, while a body longer on one side and shorter on the other is one (counts swapped).
///   Not for a body with elision lines (`// ...`), which stand for lines the counts include.
///
/// A bare reply that stops, with no newline, on a context or removed line whose counts are met
/// may be complete (stripped of its last newline) or cut inside that line: the hunk is marked
/// ([`crate::edit::Hunk::cut_line`]) for the applier, which sees the file's line.
pub(crate) fn cut_hunk(cx: &Cx, r: &Region, counts: Option<(usize, usize)>, b: &Body) -> bool {
    if r.state == RegionState::Open && r.ends_reply_unclosed(&cx.src) && glued_tail(cx, b.next) {
        return true;
    }
    if !b.reached_end || !r.ends_reply_unclosed(&cx.src) {
        return false;
    }
    // A header with no body, or a body of context lines only, at the end of the reply: the
    // change the hunk was to carry was cut off (a complete hunk changes something).
    if b.lines.iter().all(|l| l.kind == LineKind::Context) {
        return true;
    }
    let short = counts.map(|(o, n)| (b.old < o, b.new < n));
    match r.state {
        RegionState::Open => true,
        RegionState::Top => {
            if ends_on_cut_prefix(cx) {
                return true;
            }
            let Some((o, n)) = short else {
                return false;
            };
            let unterminated = !cx.src.ends_with_newline;
            (b.ends_on_change() && ((o && n) || ((o || n) && unterminated)))
                || (!elides(b) && counts.is_some_and(|c| halved(c, (b.old, b.new))))
        }
        RegionState::Closed => false,
    }
}

/// Whether the lines from `next` to the reply's end are text glued to the edit before them: no
/// blank line between, none among them. Prose after an edit whose wrapper was left open comes
/// after a blank line; text glued to a hunk's last line is a line of the hunk that lost its
/// prefix, and the reply was cut after it.
pub(crate) fn glued_tail(cx: &Cx, next: usize) -> bool {
    next > 0
        && next < cx.src.len()
        && (next - 1..cx.src.len()).all(|k| !cx.src.line(k).trim().is_empty())
}

/// Whether the reply stops, with no newline, on this hunk's last line, and that line is a
/// context or removed line (see [`crate::edit::Hunk::cut_line`]).
pub(crate) fn ends_in_quoted_line(cx: &Cx, r: &Region, b: &Body) -> bool {
    let last = cx.src.len().checked_sub(1).map(|k| cx.src.line(k));
    !cx.src.ends_with_newline
        && b.next >= cx.src.len()
        && r.ends_reply_unclosed(&cx.src)
        && last.is_some_and(|l| matches!(l.as_bytes().first(), Some(b' ' | b'-')))
        && b.lines.last().is_some_and(|l| l.kind != LineKind::Add)
}

/// Whether the body has an elision line (`...`, `// ...`), standing for lines its counts hold.
fn elides(b: &Body) -> bool {
    b.elisions > 0
        || b.lines
            .iter()
            .any(|l| crate::placeholder::is_elision(&l.text))
}

/// Whether the reply's last line, with no newline after it, is a diff line prefix alone (` `,
/// `+` or `-`, trailing whitespace aside) or the start of a `\ No newline at end of file` line.
fn ends_on_cut_prefix(cx: &Cx) -> bool {
    let last = cx.src.len().checked_sub(1).map(|k| cx.src.line(k));
    !cx.src.ends_with_newline
        && last.is_some_and(|l| {
            let bare = matches!(l.as_bytes().first(), Some(b' ' | b'+' | b'-'))
                && l[1..].trim().is_empty();
            let marker = "\\ No newline at end of file";
            bare || (l.starts_with('\\') && l.trim_end() != marker)
        })
}

/// Whether a body of `(old, new)` lines holds at most half of what its header counts on one
/// side (two or more lines missing there) and no more than it counts on the other.
fn halved((oc, nc): (usize, usize), (old, new): (usize, usize)) -> bool {
    let half = |count: usize, got: usize| got * 2 <= count && count - got >= 2;
    old <= oc && new <= nc && (half(oc, old) || half(nc, new))
}

#[cfg(test)]
#[path = "cut_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
