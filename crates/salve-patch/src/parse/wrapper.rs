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
use super::{codex, diff, json, paths, search_replace, tool_xml, whole_file};
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
    scan_region(cx, &inner);
    close.map_or(end, |c| c + 1)
}

/// True when the content starting at `first` opens with an edit of any format.
fn starts_with_edit(cx: &Cx, first: usize, end: usize) -> bool {
    let line = cx.src.line(first);
    let t = line.trim_start();
    line.starts_with("diff --git ")
        || diff::is_file_header(&cx.src, first, end)
        || codex::is_start(line)
        || search_replace::is_search(line)
        || tool_xml::tool_at(line).is_some()
        || diff::is_orphan_hunk_start(&cx.src, first, end)
        || line.trim() == MARK_START
        || ((t.starts_with('{') || t.starts_with('['))
            && json::mentions_edit_keys(
                cx.src
                    .text()
                    .get(cx.src.offset(first)..cx.src.offset(end))
                    .unwrap_or(""),
            ))
}

/// Reads the fence opened at line `i`; returns the line after its close. `pending` is a path
/// line seen just before the fence.
fn fence(cx: &mut Cx, r: &Region, i: usize, f: &Fence, pending: Option<paths::PathLine>) -> usize {
    let info_path = paths::path_from_info(&f.info);
    // A weak path (a bare word such as `compile`) is trusted for whole-file content only when
    // the content is a script (`#!`); edit formats inside the fence prove intent on their own.
    let strong = info_path.is_some() || pending.as_ref().is_some_and(|p| p.strict);
    let hint = info_path.or(pending.map(|p| p.path));
    let lang = lang_of(&f.info);
    let diff_lang = is_diff_lang(&lang);
    let start = i + 1;
    let first = cx.src.next_nonblank(start, r.end);

    // SEARCH/REPLACE content may itself hold fences, so its blocks are read before the close.
    if let Some(k) = first {
        let second = cx.src.next_nonblank(k + 1, r.end);
        let sr_first = search_replace::is_search(cx.src.line(k))
            || (paths::path_candidate(cx.src.line(k)).is_some()
                && second.is_some_and(|s| search_replace::is_search(cx.src.line(s))));
        if sr_first {
            return search_replace::parse_fenced(cx, r, start, f, hint);
        }
        if tool_xml::tool_at(cx.src.line(k)).is_some() {
            return tool_calls_fenced(cx, r, k, f);
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
    let Some(first) = cx.src.next_nonblank(start, end) else {
        return next;
    };
    let content: Vec<&str> = (first..end).map(|k| cx.src.line(k)).collect();
    // Content holding edit syntax is an edit (or malformed), never a whole file to write.
    let edit_first =
        starts_with_edit(cx, first, end) || whole_file::edit_syntax_at(&content).is_some();
    let whole_ok = strong || cx.src.line(first).starts_with("#!");
    let bare_name = hint
        .as_ref()
        .filter(|p| !whole_ok && !paths::is_path_like(p, true))
        .cloned();
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
                let message = format!(
                    "line {}: the block after the line {name:?} may be the whole file {name}, but a bare name does not say so surely; name it with its directory or as `File: {name}`",
                    i + 1
                );
                bare_named(cx, &inner, name, &lang, message);
            }
        }
    }
    next
}

/// Refuse the block after a bare name with `message`, and keep the whole-file edit it would be
/// (when it reads as one without another issue) beside the issue.
fn bare_named(cx: &mut Cx, inner: &Region, name: String, lang: &str, message: String) {
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
        });
    }
    cx.issues.push(issue);
}

/// Reads the tool calls in the fence whose first call opens at line `k`, then the fence's
/// close; returns the line after it. A call's text may hold fences of its own, so calls are
/// read before the close is looked for.
fn tool_calls_fenced(cx: &mut Cx, r: &Region, k: usize, f: &Fence) -> usize {
    let mut i = k;
    while i < r.end {
        let l = cx.src.line(i);
        if is_fence_close(l, f) {
            return i + 1;
        }
        if tool_xml::tool_at(l).is_some() {
            i = tool_xml::parse(cx, r, i).max(i + 1);
        } else {
            i += 1;
        }
    }
    r.end
}

/// Nesting deeper than this is read as prose, so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 8;

/// Reads `r` as a (nested) reply: wrappers, edits of every format, and prose.
pub(crate) fn scan_region(cx: &mut Cx, r: &Region) {
    let mut i = r.start;
    let mut pending: Option<paths::PathLine> = None;
    let mut orphan_seen = false;
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
                pending = None;
                continue;
            }
            if let Some(f) = fence_open(line) {
                i = fence(cx, r, i, &f, pending.take());
                continue;
            }
        }
        if let Some(next) = try_edit(cx, r, i, &mut pending, &mut orphan_seen) {
            i = next.max(i + 1);
            pending = None;
            continue;
        }
        if search_replace::looks_like_marker(line) {
            cx.issue(
                IssueKind::Malformed,
                None,
                format!("line {}: unrecognised SEARCH/REPLACE marker {t:?}", i + 1),
            );
        }
        pending = paths::path_candidate(line).or_else(|| paths::prose_path(line));
        i += 1;
    }
}

/// Reads the edit starting at line `i`, if one does; returns the line after it.
fn try_edit(
    cx: &mut Cx,
    r: &Region,
    i: usize,
    pending: &mut Option<paths::PathLine>,
    orphan_seen: &mut bool,
) -> Option<usize> {
    let line = cx.src.line(i);
    if tool_xml::tool_at(line).is_some() {
        return Some(tool_xml::parse(cx, r, i));
    }
    if line.starts_with("diff --git ") {
        return Some(diff::parse_git(cx, r, i));
    }
    if diff::is_file_header(&cx.src, i, r.end) {
        return Some(diff::parse_unified(cx, r, i));
    }
    if codex::is_start(line) {
        return Some(codex::parse(cx, r, i));
    }
    if search_replace::is_search(line) {
        let path = pending
            .take()
            .map(|p| p.path)
            .or_else(|| r.hint.clone())
            .or_else(|| cx.last_sr_path.clone());
        return Some(search_replace::parse_block(cx, r, i, path));
    }
    let t = line.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        if let Some(next) = json::try_parse(cx, r, i) {
            return Some(next);
        }
    }
    if r.diff_lang && diff::is_headerless_body_start(line) {
        if let Some(path) = r.hint.clone() {
            return Some(diff::parse_orphan(cx, r, i, &path));
        }
    }
    if diff::is_orphan_hunk_start(&cx.src, i, r.end) {
        if let Some(path) = r.hint.clone() {
            return Some(diff::parse_orphan(cx, r, i, &path));
        }
        if !*orphan_seen {
            *orphan_seen = true;
            cx.issue(
                IssueKind::Malformed,
                None,
                format!("line {}: diff hunk without a file header", i + 1),
            );
        }
        return Some(diff::skip_orphan(cx, r, i));
    }
    None
}
