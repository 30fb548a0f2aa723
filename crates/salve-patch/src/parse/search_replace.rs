//! SEARCH/REPLACE blocks (aider, Cline, Roo) and their lowering to hunks.
//!
//! A block is lowered to a single hunk by a line diff of the search text against the replace
//! text ([`super::pair`], shared with old/new JSON), so the pre-image is exactly the search text
//! and the post-image exactly the replace text; the diff only decides which lines are context.

use super::cx::{Cx, Region};
use super::fence::{is_fence_close, Fence};
use super::pair::push_pair;
use super::paths;
use crate::edit::{Format, IssueKind};

/// `ch` repeated 5 to 9 times (3 or more for the Cline `-`/`+` style), then `word`.
fn marker(line: &str, ch: u8, min: usize, word: &str) -> bool {
    let t = line.trim();
    let n = t.bytes().take_while(|&b| b == ch).count();
    if n < min || n > 9 {
        return false;
    }
    let rest = t.get(n..).unwrap_or("").trim_start();
    if word.is_empty() {
        rest.is_empty()
    } else {
        rest.eq_ignore_ascii_case(word)
    }
}

/// `<<<<<<< SEARCH` (5 to 9 `<`) or Cline's `------- SEARCH`.
pub(crate) fn is_search(line: &str) -> bool {
    marker(line, b'<', 5, "SEARCH") || marker(line, b'-', 3, "SEARCH")
}

/// `=======` (5 to 9 `=`).
pub(crate) fn is_divider(line: &str) -> bool {
    marker(line, b'=', 5, "")
}

/// `>>>>>>> REPLACE` (5 to 9 `>`) or Cline's `+++++++ REPLACE`.
pub(crate) fn is_replace(line: &str) -> bool {
    marker(line, b'>', 5, "REPLACE") || marker(line, b'+', 3, "REPLACE")
}

/// The run length of the marker character that opens `line`.
fn marker_len(line: &str) -> usize {
    let t = line.trim();
    let Some(&c) = t.as_bytes().first() else {
        return 0;
    };
    t.bytes().take_while(|&b| b == c).count()
}

/// Chooses the divider among the `=======`-like lines of a block opened at line `i`. Text may
/// hold such lines too (Markdown underlines); a divider as long as the SEARCH marker is
/// preferred, and among equals an odd count splits at the middle one (text kept on both sides).
fn pick_divider(cx: &Cx, i: usize, dividers: &[usize]) -> Option<usize> {
    let want = marker_len(cx.src.line(i));
    let same: Vec<usize> = dividers
        .iter()
        .copied()
        .filter(|&k| marker_len(cx.src.line(k)) == want)
        .collect();
    for set in [&same[..], dividers] {
        if set.len() % 2 == 1 {
            return set.get(set.len() / 2).copied();
        }
    }
    None
}

/// Reads one block whose SEARCH marker is at line `i`; returns the line after it.
pub(crate) fn parse_block(cx: &mut Cx, r: &Region, i: usize, path: Option<String>) -> usize {
    if path.is_some() {
        cx.last_sr_path.clone_from(&path);
    }
    let mut j = i + 1;
    let mut start_line = None;
    while j < r.end {
        let t = cx.src.line(j).trim();
        if let Some(v) = t.strip_prefix(":start_line:") {
            start_line = v.trim().parse::<usize>().ok().filter(|&n| n > 0);
        } else if !t.starts_with(":end_line:") {
            break;
        }
        j += 1;
    }
    if j < r.end && cx.src.line(j).trim() == "-------" {
        j += 1;
    }
    let body = j;
    let mut dividers = Vec::new();
    let mut close = None;
    while j < r.end {
        let l = cx.src.line(j);
        if is_replace(l) {
            close = Some(j);
            break;
        }
        if is_search(l) {
            break;
        }
        if is_divider(l) {
            dividers.push(j);
        }
        j += 1;
    }
    let Some(close) = close else {
        if j >= r.end && r.ends_reply_unclosed(&cx.src) {
            cx.issue(
                IssueKind::Truncated,
                path.as_deref(),
                "the reply ends inside a SEARCH/REPLACE block",
            );
        } else {
            cx.issue(
                IssueKind::Malformed,
                path.as_deref(),
                format!("line {}: SEARCH block without a REPLACE marker", i + 1),
            );
        }
        return j;
    };
    let div = pick_divider(cx, i, &dividers);
    let Some(div) = div else {
        cx.issue(
            IssueKind::Malformed,
            path.as_deref(),
            format!(
                "line {}: SEARCH/REPLACE block with {} '=======' lines; cannot tell where SEARCH ends",
                i + 1,
                dividers.len()
            ),
        );
        return close + 1;
    };
    let Some(path) = path else {
        cx.issue(
            IssueKind::Malformed,
            None,
            format!("line {}: SEARCH/REPLACE block without a file path", i + 1),
        );
        return close + 1;
    };
    let search: Vec<&str> = (body..div).map(|k| cx.src.line(k)).collect();
    let replace: Vec<&str> = (div + 1..close).map(|k| cx.src.line(k)).collect();
    push_pair(
        cx,
        &path,
        search,
        replace,
        start_line,
        Format::SearchReplace,
        false,
    );
    close + 1
}

/// Reads SEARCH/REPLACE blocks inside the fence whose content starts at `start`, then the
/// fence's close; returns the line after the close. Path lines between blocks switch files.
pub(crate) fn parse_fenced(
    cx: &mut Cx,
    r: &Region,
    start: usize,
    f: &Fence,
    hint: Option<String>,
) -> usize {
    let mut i = start;
    let mut pending: Option<String> = None;
    while i < r.end {
        let l = cx.src.line(i);
        if is_fence_close(l, f) {
            return i + 1;
        }
        if l.trim().is_empty() {
            i += 1;
            continue;
        }
        if is_search(l) {
            let path = pending
                .take()
                .or_else(|| hint.clone())
                .or_else(|| cx.last_sr_path.clone());
            i = parse_block(cx, r, i, path).max(i + 1);
            continue;
        }
        if let Some(p) = paths::path_candidate(l) {
            pending = Some(p.path);
            i += 1;
            continue;
        }
        // Not a block: the rest of the fence is prose; skip to its close.
        cx.note(format!(
            "line {}: text after SEARCH/REPLACE blocks in a fence ignored",
            i + 1
        ));
        return (i..r.end)
            .find(|&k| is_fence_close(cx.src.line(k), f))
            .map_or(r.end, |k| k + 1);
    }
    r.end
}

#[cfg(test)]
#[path = "search_replace_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
