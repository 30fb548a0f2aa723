//! Signs that a reply was cut, read where the reply ends. A reply may stop anywhere; a cut at
//! the boundary between two blocks leaves a shorter, complete reply, but a cut inside an edit's
//! structure leaves a sign, which refuses the reply as `Truncated`: a reply that stops with no
//! newline inside a wrapper holding an edit, on a path line, or on a piece of edit syntax (a
//! header with nothing after it, the start of a marker or of a fence). The format readers read
//! their own signs (an unclosed block, a hunk short of its counts: see `parse/diff.rs`).

use super::cx::{Cx, Region, RegionState};
use super::paths;
use super::readers::LineState;
use crate::edit::IssueKind;

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
/// own content may be an edit too short to be read as one (`{"file_path": "sr`). Refused when
/// the reply holds an edit at all (`found_before` counts what was found before the wrapper).
pub(crate) fn stops_inside(
    cx: &mut Cx,
    state: RegionState,
    found_before: usize,
    hint: Option<&str>,
    i: usize,
) {
    let reported = cx.issues.iter().any(|i| i.kind == IssueKind::Truncated);
    if state != RegionState::Open
        || cx.src.ends_with_newline
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
pub(crate) fn dangling_path(cx: &mut Cx, r: &Region, state: &LineState) {
    if r.end < cx.src.len() || r.state == RegionState::Closed {
        return;
    }
    let Some(last) = (0..cx.src.len())
        .rev()
        .find(|&k| !cx.src.line(k).trim().is_empty())
    else {
        return;
    };
    let Some(p) = state.pending.as_ref().filter(|p| p.strict) else {
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

#[cfg(test)]
#[path = "cut_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
