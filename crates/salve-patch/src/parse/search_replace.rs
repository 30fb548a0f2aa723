//! SEARCH/REPLACE blocks (aider, Cline, Roo) and their lowering to hunks.
//!
//! A block is lowered to a single hunk by a line diff of the search text against the replace
//! text ([`super::pair`], shared with old/new JSON), so the pre-image is exactly the search text
//! and the post-image exactly the replace text; the diff only decides which lines are context.

use super::cx::{Cx, Region};
use super::fence::{is_fence_close, Fence};
use super::markers::{is_divider, is_replace, is_search, looks_like_marker};
use super::pair::push_pair;
use super::paths;
use crate::edit::{Format, IssueKind};

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

/// Roo's escape for text that would read as a marker: `\:start_line:`, `\=======`,
/// `\-------`, `\<<<<<<< SEARCH`, `\>>>>>>> REPLACE` stand for the line without the backslash.
fn unescape(line: &str) -> String {
    let lead = line.len() - line.trim_start().len();
    let rest = &line[lead..];
    match rest.strip_prefix('\\') {
        Some(r)
            if r.starts_with(":start_line:")
                || r.starts_with(":end_line:")
                || is_divider(r)
                || r.trim_end() == "-------"
                || is_search(r)
                || is_replace(r) =>
        {
            format!("{}{r}", &line[..lead])
        }
        _ => line.to_owned(),
    }
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
    // A divider-like line inside REPLACE that SEARCH does not hold (a heading underline kept
    // from the file) reads as a divider as much as text: refused, never guessed.
    if let Some(k) = (div + 1..close).find(|&k| {
        let l = cx.src.line(k);
        is_divider(l) && !(body..div).any(|s| cx.src.line(s).trim() == l.trim())
    }) {
        cx.issue(
            IssueKind::EditSyntax,
            Some(&path),
            format!(
                "line {}: {:?} inside the REPLACE text reads as a divider too; escape it as \\{} or send the block without it",
                k + 1,
                cx.src.line(k).trim(),
                cx.src.line(k).trim()
            ),
        );
        return close + 1;
    }
    let search: Vec<String> = (body..div).map(|k| unescape(cx.src.line(k))).collect();
    let replace: Vec<String> = (div + 1..close).map(|k| unescape(cx.src.line(k))).collect();
    push_pair(
        cx,
        &path,
        search.iter().map(String::as_str).collect(),
        replace.iter().map(String::as_str).collect(),
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
        // Not a block. When another block follows before the close (two blocks with a `...`
        // or a sentence between them), the line is prose between blocks and reading goes on:
        // dropping the later block would lose an edit. Otherwise the rest of the fence is
        // prose; skip to its close.
        let close = (i..r.end).find(|&k| is_fence_close(cx.src.line(k), f));
        let stop = close.unwrap_or(r.end);
        if (i..stop).any(|k| is_search(cx.src.line(k))) {
            // A stray marker between blocks means a block closed where the reply did not
            // mean it to: the text up to here is not what the reply meant either.
            if looks_like_marker(l) {
                cx.issue(
                    IssueKind::Malformed,
                    None,
                    format!(
                        "line {}: unrecognised SEARCH/REPLACE marker {:?}",
                        i + 1,
                        l.trim()
                    ),
                );
            }
            cx.note(format!(
                "line {}: text between SEARCH/REPLACE blocks in a fence ignored",
                i + 1
            ));
            i += 1;
            continue;
        }
        if close.is_none() && r.ends_reply_unclosed(&cx.src) {
            // The fence never closes and the reply ends in text after the blocks: the reply
            // was cut there, and what that text began (another block) is lost.
            let path = cx.last_sr_path.clone();
            cx.issue(
                IssueKind::Truncated,
                path.as_deref(),
                format!(
                    "line {}: the reply ends inside the SEARCH/REPLACE fence, after its last block",
                    i + 1
                ),
            );
            return r.end;
        }
        if let Some(k) = (i..stop).find(|&k| looks_like_marker(cx.src.line(k))) {
            cx.issue(
                IssueKind::Malformed,
                None,
                format!(
                    "line {}: unrecognised SEARCH/REPLACE marker {:?}",
                    k + 1,
                    cx.src.line(k).trim()
                ),
            );
        } else {
            cx.note(format!(
                "line {}: text after SEARCH/REPLACE blocks in a fence ignored",
                i + 1
            ));
        }
        return close.map_or(r.end, |k| k + 1);
    }
    if pending.is_some() && r.ends_reply_unclosed(&cx.src) {
        // A path line, then the end of the reply inside the fence: its block was cut off.
        cx.issue(
            IssueKind::Truncated,
            pending.as_deref(),
            "the reply ends inside the SEARCH/REPLACE fence, after a path line",
        );
    } else if r.ends_reply_unclosed(&cx.src) {
        // The fence never closes and the reply ends right after a block: cut at the block's
        // end, and whatever followed (more blocks) is lost. A fence forgotten open is rarer
        // than a reply cut short, and refusing it costs a resend, not a wrong file.
        let path = cx.last_sr_path.clone();
        cx.issue(
            IssueKind::Truncated,
            path.as_deref(),
            "the reply ends inside the SEARCH/REPLACE fence, which never closes",
        );
    }
    r.end
}

/// Reads every SEARCH/REPLACE block of `r` for `path` (the text of a tool call's diff); returns
/// how many blocks were read. A non-blank line outside the blocks is `Malformed`, except a bare
/// fence line around them: nothing in a diff is dropped unread.
pub(crate) fn parse_all(cx: &mut Cx, r: &Region, path: &str) -> usize {
    let mut i = r.start;
    let mut blocks = 0;
    while i < r.end {
        let l = cx.src.line(i);
        let t = l.trim();
        if t.is_empty() || (super::fence::fence_open(l).is_some() && !t.contains(' ')) {
            i += 1;
            continue;
        }
        if is_search(l) {
            blocks += 1;
            i = parse_block(cx, r, i, Some(path.to_string())).max(i + 1);
            continue;
        }
        cx.issue(
            IssueKind::Malformed,
            Some(path),
            format!(
                "line {}: {:?} is not part of a SEARCH/REPLACE block",
                i + 1,
                super::body::truncate(t, 60)
            ),
        );
        i += 1;
    }
    blocks
}

#[cfg(test)]
#[path = "search_replace_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
