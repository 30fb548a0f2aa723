//! Reading a region of the reply as a (nested) reply: [`scan_region`] walks its lines, hands each
//! edit to its format's reader, and opens the wrappers around edits: Markdown fences (any
//! length, backticks or tildes; lexed by [`super::fence`]) and the `<<<AI_DIFF_START>>>` /
//! `<<<AI_DIFF_END>>>` markers.
//!
//! A wrapper's content is read as a nested reply, so wrappers may hold prose, several edits and
//! further wrappers; the recursion stays inside this module. A fence that has a path attached and
//! whose content is not an edit is a whole-file block. A wrapper the reply ends inside is an
//! [`RegionState::Open`] region; the format readers use that as evidence of truncation.

use super::cx::{Cx, Region, RegionState};
use super::fence::{fence_open, is_diff_lang, is_fence_close, lang_of, Fence};
use super::readers::{self, LineState};
use super::{cut, markers, paths, whole_file};
use crate::edit::{BareNamed, FileEdit, IssueKind, ParseIssue};

const MARK_START: &str = "<<<AI_DIFF_START>>>";
const MARK_END: &str = "<<<AI_DIFF_END>>>";

/// Reads a markers pair starting at line `i`; returns the line after it.
fn markers(cx: &mut Cx, r: &Region, i: usize) -> usize {
    let close = (i + 1..r.end).find(|&k| cx.src.line(k).trim() == MARK_END);
    let (end, state) = match close {
        Some(c) => (c, RegionState::Closed),
        None => (r.end, r.unclosed_child_state(&cx.src)),
    };
    let inner = Region {
        start: i + 1,
        end,
        state,
        hint: None,
        diff_lang: false,
        depth: r.depth + 1,
    };
    let before = cx.found();
    scan_region(cx, &inner);
    cut::stops_inside(cx, state, before, None, i);
    close.map_or(end, |c| c + 1)
}

/// True when the content starting at `first` opens with an edit of any format (or a markers
/// pair around one).
fn starts_with_edit(cx: &Cx, first: usize, end: usize) -> bool {
    cx.src.line(first).trim() == MARK_START || readers::leads_any(&cx.src, first, end)
}

/// Reads the fence opened at line `i`; returns the line after its close. `pending` is a path
/// line seen just before the fence.
fn fence(cx: &mut Cx, r: &Region, i: usize, f: &Fence, pending: Option<paths::PathLine>) -> usize {
    let mut info_path = paths::path_from_info(&f.info);
    // A language tag that is also a file name (```` ```makefile ````, ```` ```dockerfile ````)
    // names a file only when nothing else does: a path line before the fence beats it.
    if pending.is_some()
        && info_path
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case(&lang_of(&f.info)))
    {
        info_path = None;
    }
    // A weak path (a bare word such as `compile`) is trusted for whole-file content only when
    // the content is a script (`#!`); edit formats inside the fence prove intent on their own.
    let strong = info_path.is_some() || pending.as_ref().is_some_and(|p| p.strict);
    let loose = info_path.is_none() && pending.as_ref().is_some_and(|p| p.loose);
    // A path named only in the sentence before the fence (`` Updated `src/a.go`: ``).
    let prose = info_path.is_none()
        && pending
            .as_ref()
            .is_some_and(|p| !p.strict && !p.loose && paths::is_path_like(&p.path, false));
    let hint = info_path.or(pending.map(|p| p.path));
    let lang = lang_of(&f.info);
    let diff_lang = is_diff_lang(&lang);
    let start = i + 1;
    let first = cx.src.next_nonblank(start, r.end);

    // Content in a format whose text may hold fences (SEARCH/REPLACE blocks, tool calls) is
    // read by its reader before the close is looked for.
    if let Some(k) = first {
        if let Some(read) = readers::fenced_at(&cx.src, k, r.end) {
            return read(cx, r, start, k, f, hint);
        }
    }

    let close = (start..r.end).find(|&k| is_fence_close(cx.src.line(k), f));
    let end = close.unwrap_or(r.end);
    let state = match close {
        Some(_) => RegionState::Closed,
        None => r.unclosed_child_state(&cx.src),
    };
    if close.is_none() && state == RegionState::Closed {
        cx.note(format!(
            "line {}: fence never closed; read up to the end of its wrapper",
            i + 1
        ));
    }
    let inner = Region {
        start,
        end,
        state,
        hint: hint.clone(),
        diff_lang,
        depth: r.depth + 1,
    };
    let next = close.map_or(end, |c| c + 1);
    let found_before = cx.found();
    let attached = hint.clone();
    let Some(first) = cx.src.next_nonblank(start, end) else {
        if state == RegionState::Open {
            // A fence opened as the reply ends: the edit it was to hold was cut off.
            cx.issue(
                IssueKind::Truncated,
                hint.as_deref(),
                format!("line {}: the reply ends right after a fence opens", i + 1),
            );
        }
        return next;
    };
    let content: Vec<&str> = (first..end).map(|k| cx.src.line(k)).collect();
    // Content holding edit syntax is an edit (or malformed), never a whole file to write.
    let edit_first =
        starts_with_edit(cx, first, end) || whole_file::edit_syntax_at(&content).is_some();
    let whole_ok = strong || cx.src.line(first).starts_with("#!");
    // A shell session after a name (`` `make`: `` then ```` ```sh ````) runs it; it is no file.
    let shell = matches!(
        lang.as_str(),
        "sh" | "bash" | "zsh" | "shell" | "console" | "shell-session" | "powershell" | "ps" | "cmd"
    );
    let bare_name = hint
        .as_ref()
        .filter(|p| !whole_ok && !shell && (loose || !paths::is_path_like(p, true)))
        .cloned();
    let prose_name = hint.clone().filter(|_| prose && !shell && !diff_lang);
    let hint = hint.filter(|_| whole_ok || edit_first || diff_lang);
    match hint {
        Some(path) if !edit_first && !diff_lang => {
            whole_file::take(cx, &inner, path, &lang);
        }
        Some(path) => {
            let before = cx.found();
            scan_region(cx, &inner);
            if cx.found() == before && !diff_lang && whole_ok {
                whole_file::take(cx, &inner, path, &lang);
            }
        }
        None => {
            let before = cx.found();
            scan_region(cx, &inner);
            // A block right after a line that is only a bare name (`CHANGES`) may be that whole
            // file; the name is not sure enough to write it, and ignoring the block could drop
            // an edit, so the reply is refused with the reason. The block goes with the issue,
            // for a caller that sees the work tree to take when the name is sure there.
            if let Some(name) = bare_name.filter(|_| cx.found() == before && !diff_lang) {
                let message = if loose {
                    format!(
                        "line {}: the block after the line {name:?} may be the whole file {name}, but that path names no file of the tree and no new file in a directory that exists",
                        i + 1
                    )
                } else {
                    format!(
                        "line {}: the block after the line {name:?} may be the whole file {name}, but a bare name does not say so surely; name it with its directory or as `File: {name}`",
                        i + 1
                    )
                };
                bare_named(cx, &inner, name, &lang, message, loose);
            } else if let Some(name) = prose_name.filter(|_| cx.found() == before) {
                prose_named(cx, &inner, name, &lang);
            }
        }
    }
    cut::stops_inside(cx, state, found_before, attached.as_deref(), i);
    next
}

/// A block after a sentence that names a file (`` Updated `src/a.go`: ``) may be that whole
/// file, or an example of its use: kept beside the reply, for a caller that sees the work tree
/// to take only when the block is clearly that file's content. Otherwise it stays prose, as a
/// code sample in an explanation is.
fn prose_named(cx: &mut Cx, inner: &Region, name: String, lang: &str) {
    let (issues, kept) = (cx.issues.len(), cx.bare_named.len());
    let message = "a block after a sentence naming the file".to_owned();
    bare_named(cx, inner, name, lang, message, false);
    // No issue: unless the work tree shows the block is the file, it is an example.
    cx.issues.truncate(issues);
    cx.bare_named.truncate(kept + 1);
}

/// Refuse the block after a bare name with `message`, and keep the whole-file edit it would be
/// (when it reads as one without another issue) beside the issue.
fn bare_named(cx: &mut Cx, inner: &Region, name: String, lang: &str, message: String, loose: bool) {
    let (edits, issues) = (cx.edits.len(), cx.issues.len());
    whole_file::take(cx, inner, name.clone(), lang);
    let clean = cx.issues.len() == issues;
    cx.issues.truncate(issues);
    let taken: Vec<FileEdit> = cx.edits.drain(edits..).collect();
    let issue = ParseIssue {
        kind: IssueKind::Malformed,
        path: Some(name),
        message,
    };
    if let (true, [edit]) = (clean, &taken[..]) {
        cx.bare_named.push(BareNamed {
            edit: edit.clone(),
            issue: issue.clone(),
            loose,
        });
    }
    cx.issues.push(issue);
}

/// Nesting deeper than this is read as prose, so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 8;

/// Reads `r` as a (nested) reply: wrappers, edits of every format, and prose.
pub(crate) fn scan_region(cx: &mut Cx, r: &Region) {
    let mut i = r.start;
    let mut state = LineState::default();
    while i < r.end {
        let line = cx.src.line(i);
        let t = line.trim();
        if t.is_empty() {
            i += 1;
            continue;
        }
        if r.depth < MAX_DEPTH {
            if t == MARK_START {
                i = markers(cx, r, i);
                state.pending = None;
                continue;
            }
            if let Some(f) = fence_open(line) {
                i = fence(cx, r, i, &f, state.pending.take());
                continue;
            }
        }
        if let Some(next) = readers::read_at(cx, r, i, &mut state) {
            i = next.max(i + 1);
            state.pending = None;
            continue;
        }
        if markers::looks_like_marker(line) {
            cx.issue(
                IssueKind::Malformed,
                None,
                format!("line {}: unrecognised SEARCH/REPLACE marker {t:?}", i + 1),
            );
        }
        state.pending = paths::path_candidate(line).or_else(|| paths::prose_path(line));
        i += 1;
    }
    cut::dangling_path(cx, r, state.pending.as_ref());
}
