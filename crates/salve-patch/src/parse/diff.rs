//! git and plain unified diffs.
//!
//! Headers are read for paths and file operations only: hunk counts are recomputed from the
//! body and line numbers become hints. A hunk the reply was cut inside is reported as truncated
//! when the evidence allows it (see [`cut_hunk`]).

use super::body::{self, Body};
use super::cut::{cut_hunk, ends_in_quoted_line};
use super::cx::{Cx, Region, Source};
use super::{markers, paths, sanitize};
use crate::edit::{Anchor, FileChange, FileEdit, Format, Hunk, IssueKind, LineKind};
use crate::text::Trim as _;

/// A parsed `@@` line.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct HunkHeader {
    pub old_start: Option<usize>,
    pub old_count: Option<usize>,
    pub new_count: Option<usize>,
    pub scope: Option<String>,
}

impl HunkHeader {
    pub(crate) fn counts(&self) -> Option<(usize, usize)> {
        Some((self.old_count?, self.new_count?))
    }
}

/// Reads `N` or `N,M` from the start of `s`; returns (start, count, rest).
fn range(s: &str) -> Option<(usize, usize, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let start: usize = s.get(..digits)?.parse().ok()?;
    let rest = s.get(digits..)?;
    if let Some(r) = rest.strip_prefix(',') {
        let d = r.bytes().take_while(u8::is_ascii_digit).count();
        let count: usize = r.get(..d)?.parse().ok()?;
        return Some((start, count, r.get(d..)?));
    }
    Some((start, 1, rest))
}

/// Reads a hunk header: `@@ -a,b +c,d @@ heading`, `@@ ... @@ heading`, bare `@@`, or
/// `@@ heading`. Combined-diff `@@@` headers are not hunk headers.
pub(crate) fn parse_hunk_header(line: &str) -> Option<HunkHeader> {
    let rest = line.strip_prefix("@@")?;
    if rest.starts_with('@') {
        return None;
    }
    let t = rest.trim_start_ws();
    let numbered = t.strip_prefix('-').and_then(|t| {
        let (os, oc, r) = range(t)?;
        let r = r.trim_start_ws().strip_prefix('+')?;
        let (_, nc, r) = range(r)?;
        Some((os, oc, nc, r))
    });
    let (mut h, after) = match numbered {
        Some((os, oc, nc, r)) => (
            HunkHeader {
                old_start: Some(os),
                old_count: Some(oc),
                new_count: Some(nc),
                scope: None,
            },
            r,
        ),
        None => (HunkHeader::default(), t.strip_prefix("...").unwrap_or(t)),
    };
    let after = after.trim_start_ws();
    let heading = after.strip_prefix("@@").unwrap_or(after).trim_ws();
    if !heading.is_empty() {
        h.scope = Some(heading.to_string());
    }
    Some(h)
}

/// `--- x` followed by `+++ y`: a unified file header.
pub(crate) fn is_file_header(src: &Source, i: usize, end: usize) -> bool {
    i + 1 < end && src.line(i).starts_with("--- ") && src.line(i + 1).starts_with("+++ ")
}

/// A hunk header at line `i` followed by a body line.
pub(crate) fn is_orphan_hunk_start(src: &Source, i: usize, end: usize) -> bool {
    parse_hunk_header(src.line(i)).is_some()
        && i + 1 < end
        && matches!(src.line(i + 1).as_bytes().first(), Some(b' ' | b'+' | b'-'))
}

/// A line that can open a hunk body written without any header.
pub(crate) fn is_headerless_body_start(line: &str) -> bool {
    matches!(line.as_bytes().first(), Some(b' ' | b'+' | b'-'))
        && !line.starts_with("--- ")
        && !line.starts_with("+++ ")
}

/// Where a unified or git hunk body ends.
fn diff_terminator(src: &Source, i: usize, end: usize) -> bool {
    let l = src.line(i);
    l.starts_with("@@")
        || l.starts_with("diff --git ")
        || l.starts_with("*** ")
        || is_file_header(src, i, end)
}

/// Reads consecutive hunks from line `i`. Returns them, the next line, and whether the reply
/// was cut inside the last one.
fn parse_hunks(cx: &mut Cx, r: &Region, mut i: usize, path: &str) -> (Vec<Hunk>, usize, bool) {
    let mut hunks = Vec::new();
    let mut cut = false;
    while i < r.end {
        let line = cx.src.line(i);
        if line.trim_ws().is_empty() {
            match cx.src.next_nonblank(i, r.end) {
                Some(j) if cx.src.line(j).starts_with("@@") => {
                    i = j;
                    continue;
                }
                _ => break,
            }
        }
        let Some(h) = parse_hunk_header(line) else {
            break;
        };
        let b = body::read_body(&cx.src, i + 1, r.end, h.counts(), diff_terminator);
        cut |= cut_hunk(cx, r, h.counts(), &b);
        let quoted = ends_in_quoted_line(cx, r, &b);
        marker_among_lines(cx, r, path, &b);
        i = b.next.max(i + 1);
        if let Some(mut hunk) = finish_hunk(cx, path, hunks.len() + 1, &h, b) {
            hunk.cut_line = quoted;
            hunks.push(hunk);
        }
    }
    (hunks, i, cut)
}

/// A Codex end line (`*** End Patch`, `*** End of File`) that stops a unified hunk whose lines go
/// on after it stands among the hunk's lines: read as syntax it ends the hunk and drops the
/// lines after it, read as content it is a line of the hunk without its prefix. The readings
/// collide, so the reply is refused (`EditSyntax`) with the line.
fn marker_among_lines(cx: &mut Cx, r: &Region, path: &str, b: &Body) {
    let k = b.next;
    let line = cx.src.line(k);
    if k + 1 >= r.end || !line.starts_with("*** End") {
        return;
    }
    let next = cx.src.line(k + 1);
    let body_line = matches!(next.as_bytes().first(), Some(b' ' | b'+' | b'-' | b'\\'))
        && !is_file_header(&cx.src, k + 1, r.end);
    if body_line {
        cx.issue(
            IssueKind::EditSyntax,
            Some(path),
            format!(
                "line {}: {:?} stands among the lines of a hunk of {path}, which go on after it",
                k + 1,
                body::truncate(line.trim_ws(), 60)
            ),
        );
    }
}

/// Turns a read body into a hunk, noting repairs. `None` for an empty body.
pub(crate) fn finish_hunk(
    cx: &mut Cx,
    path: &str,
    n: usize,
    h: &HunkHeader,
    b: Body,
) -> Option<Hunk> {
    if let Some(msg) = &b.malformed {
        cx.issue(IssueKind::Malformed, Some(path), msg.clone());
    }
    if b.blanks_restored > 0 {
        cx.note(format!(
            "{path}: hunk {n}: {} blank line(s) read as blank context lines",
            b.blanks_restored
        ));
    }
    if b.plus_recovered > 0 {
        cx.note(format!(
            "{path}: hunk {n}: {} line(s) without prefix between added lines read as added",
            b.plus_recovered
        ));
    }
    if b.elisions > 0 {
        cx.note(format!(
            "{path}: hunk {n}: {} elision line(s) without prefix read as context",
            b.elisions
        ));
    }
    if let Some((o, c)) = h.counts() {
        if (o, c) != (b.old, b.new) {
            cx.note(format!(
                "{path}: hunk {n}: header says -{o}/+{c}, body has -{}/+{}; recounted",
                b.old, b.new
            ));
        }
    }
    // A body cut short of its header's counts (by a header or a marker line among its lines)
    // that keeps no added or removed line changes nothing: the change it announced is lost,
    // and reading it as "already applied" would drop it silently.
    let marker = b.lines.iter().find(|l| {
        let raw = match l.kind {
            LineKind::Remove => format!("-{}", l.text),
            LineKind::Add => format!("+{}", l.text),
            LineKind::Context => return false,
        };
        markers::is_search(&raw) || markers::is_replace(&raw)
    });
    if let Some(l) = marker {
        // `------- SEARCH` and `+++++++ REPLACE` are Cline's markers as much as a removed or
        // added line: the readings collide.
        cx.issue(
            IssueKind::Malformed,
            Some(path),
            format!(
                "hunk {n}: the line {:?} is a SEARCH/REPLACE marker among the hunk's lines",
                body::truncate(&l.text, 60)
            ),
        );
    }
    if h.counts().is_some_and(|counts| counts != (b.old, b.new))
        && b.lines.iter().all(|l| l.kind == LineKind::Context)
    {
        cx.issue(
            IssueKind::Malformed,
            Some(path),
            format!("hunk {n}: its body stops before any added or removed line its header counts"),
        );
    }
    if b.lines.is_empty() {
        return None;
    }
    let start_pin = h.old_start == Some(0) && b.old == 0;
    // An empty old side at line 0 pins the start even when the new side lacks its last newline
    // (a whole new file without one).
    let anchor = if start_pin {
        Anchor::Start
    } else if b.old_no_newline || b.new_no_newline {
        Anchor::End
    } else {
        Anchor::None
    };
    Some(Hunk {
        lines: b.lines,
        old_start: h.old_start.filter(|&s| s > 0),
        scopes: h.scope.iter().cloned().collect(),
        anchor,
        old_no_newline: b.old_no_newline,
        new_no_newline: b.new_no_newline,
        maybe_added: b.maybe_added,
        padded_tail: b.padded,
        substring: None,
        occurrences: None,
        cut_line: false,
    })
}

/// The lines of `hunks` on one side, joined as file content.
fn side_content(hunks: &[Hunk], new_side: bool) -> (String, bool) {
    let mut text = String::new();
    let mut any = false;
    for h in hunks {
        let lines: Vec<&str> = if new_side {
            h.post_image().collect()
        } else {
            h.pre_image().collect()
        };
        for l in lines {
            text.push_str(l);
            text.push('\n');
            any = true;
        }
    }
    let no_newline = hunks.last().is_some_and(|h| {
        if new_side {
            h.new_no_newline
        } else {
            h.old_no_newline
        }
    });
    if any && no_newline {
        text.pop();
    }
    (text, any && !no_newline)
}

/// What a file header says happens to the file.
#[derive(Default)]
struct FileOp {
    old: Option<String>,
    new: Option<String>,
    created: bool,
    deleted: bool,
    renamed: bool,
    mode: Option<u32>,
}

/// Builds the edit for one file from its header facts and hunks.
fn build(cx: &mut Cx, op: FileOp, hunks: Vec<Hunk>, format: Format, cut: bool) {
    // A `@@ -0,0 +1,N @@` hunk under a header that names the file on both sides is an insertion
    // at the start of that file (anchored by `finish_hunk`), not a new file: only `/dev/null` or
    // `new file mode` say the file is new. Where the file does not exist the applier may still
    // create it (see `apply::new_file_from_insertion`).
    let path = if op.deleted || (op.renamed && op.old.is_some()) {
        op.old.clone().or(op.new.clone())
    } else {
        op.new.clone().or(op.old.clone())
    };
    let Some(path) = path else {
        cx.issue(
            IssueKind::Malformed,
            None,
            "diff file header without a path",
        );
        return;
    };
    if cut {
        cx.issue(
            IssueKind::Truncated,
            Some(&path),
            "the reply stops inside this file's diff, before its hunks end",
        );
    }
    if let Some(l) = sanitize::lazy_added_line(&hunks) {
        cx.issue(
            IssueKind::Lazy,
            Some(&path),
            format!("added line {:?} stands in for code", body::truncate(l, 60)),
        );
    }
    let change = if op.created {
        if hunks
            .iter()
            .any(|h| h.lines.iter().any(|l| l.kind != crate::edit::LineKind::Add))
        {
            cx.note(format!(
                "{path}: new file hunk has context or removed lines; took its new side"
            ));
        }
        let (content, final_newline) = side_content(&hunks, true);
        FileChange::Create {
            content,
            final_newline,
        }
    } else if op.deleted {
        let expected = (!hunks.is_empty()).then(|| side_content(&hunks, false).0);
        FileChange::Delete { expected }
    } else if op.renamed {
        FileChange::Rename {
            to: op.new.clone().unwrap_or_else(|| path.clone()),
            hunks,
        }
    } else {
        if hunks.is_empty() && op.mode.is_none() {
            cx.note(format!("{path}: file header without hunks ignored"));
            return;
        }
        FileChange::Modify { hunks }
    };
    cx.edits.push(FileEdit {
        path,
        change,
        format,
        mode: op.mode,
    });
}

fn parse_mode(s: &str) -> Option<u32> {
    u32::from_str_radix(s.trim_ws(), 8).ok()
}

/// Reads the two path lines at `i`, `i + 1` into `op`.
fn read_file_header(cx: &Cx, i: usize, op: &mut FileOp) {
    let old = cx.src.line(i).get(4..).and_then(paths::diff_line_path);
    let new = cx.src.line(i + 1).get(4..).and_then(paths::diff_line_path);
    let (old, new) = paths::strip_ab(old, new);
    if old.is_none() {
        op.created = true;
    }
    if new.is_none() {
        op.deleted = true;
    }
    if let Some(o) = old {
        op.old = Some(o);
    }
    if let Some(n) = new {
        op.new = Some(n);
    }
}

/// Reads a `diff --git` section starting at line `i`; returns the next line.
pub(crate) fn parse_git(cx: &mut Cx, r: &Region, i: usize) -> usize {
    let header = cx.src.line(i).get("diff --git ".len()..).unwrap_or("");
    let (a, b) = paths::git_header_paths(header);
    let (old, new) = paths::strip_ab(a, b);
    let mut op = FileOp {
        old,
        new,
        ..FileOp::default()
    };
    let mut binary = false;
    let mut i = i + 1;
    while i < r.end {
        let l = cx.src.line(i);
        if let Some(m) = l.strip_prefix("new file mode ") {
            op.created = true;
            op.mode = parse_mode(m);
        } else if l.starts_with("deleted file mode ") {
            op.deleted = true;
        } else if let Some(m) = l.strip_prefix("new mode ") {
            op.mode = parse_mode(m);
        } else if l.starts_with("old mode ") {
            // Only the new mode matters to the result.
        } else if let Some(p) = l.strip_prefix("rename from ") {
            op.renamed = true;
            op.old = paths::diff_line_path(p);
        } else if let Some(p) = l.strip_prefix("rename to ") {
            op.renamed = true;
            op.new = paths::diff_line_path(p);
        } else if l.starts_with("copy from ") || l.starts_with("copy to ") {
            cx.issue(
                IssueKind::Malformed,
                op.new.as_deref(),
                "git copy headers are not supported",
            );
        } else if l.starts_with("index ")
            || l.starts_with("similarity index ")
            || l.starts_with("dissimilarity index ")
        {
            // Part of git's own header and of no use to placement: ignored without a note, as
            // nothing about the reply needed mending.
        } else if l.starts_with("Binary files ") || l == "GIT binary patch" {
            binary = true;
            if l == "GIT binary patch" {
                // The base85 payload runs to the next blank line.
                while i + 1 < r.end && !cx.src.line(i + 1).trim_ws().is_empty() {
                    i += 1;
                }
            }
        } else {
            break;
        }
        i += 1;
    }
    if binary {
        let path = op.new.clone().or(op.old.clone());
        cx.issue(
            IssueKind::Malformed,
            path.as_deref(),
            "binary diff: salve applies text edits only",
        );
        return i;
    }
    if is_file_header(&cx.src, i, r.end) {
        let was_deleted = op.deleted;
        read_file_header(cx, i, &mut op);
        // `--- a/x` + `+++ /dev/null` alone must not turn a rename into a delete.
        op.deleted |= was_deleted;
        i += 2;
    }
    let path = op.new.clone().or(op.old.clone()).unwrap_or_default();
    // Changed lines right under a `diff --git` header, with no hunk header: the header stands
    // in the middle of a hunk (a marker line among its lines), not before a file of its own.
    // A `\ No newline at end of file` line is a body line as much as a changed one, and so is
    // a blank context line that kept its space (an empty line may end the section: prose).
    let body_at = (i..r.end).find(|&k| {
        let l = cx.src.line(k);
        let blank_context = l.starts_with(' ') && l.trim_ws().is_empty();
        !(l.starts_with('\\') || blank_context)
    });
    if body_at.is_some_and(|k| {
        is_headerless_body_start(cx.src.line(k)) && !cx.src.line(k).trim_ws().is_empty()
    }) || (i < r.end && cx.src.line(i).starts_with('\\'))
    {
        cx.issue(
            IssueKind::Malformed,
            None,
            format!(
                "line {}: changed lines under a `diff --git` header with no hunk header: the header stands among a hunk's lines",
                i + 1
            ),
        );
    }
    let (hunks, next, cut) = parse_hunks(cx, r, i, &path);
    let cut = cut || header_cut_off(cx, r, &op, &hunks, next);
    build(cx, op, hunks, Format::Git, cut);
    next
}

/// Whether a file header that changes the file's content is the last thing in the reply, with
/// no hunk after it: its hunks were cut off. A rename, a mode change, a new or deleted file needs
/// none.
fn header_cut_off(cx: &Cx, r: &Region, op: &FileOp, hunks: &[Hunk], next: usize) -> bool {
    hunks.is_empty()
        && !(op.created || op.deleted || op.renamed || op.mode.is_some())
        && r.ends_reply_unclosed(&cx.src)
        && cx.src.next_nonblank(next, cx.src.len()).is_none()
}

/// Reads a plain unified file section (`---`, `+++`, hunks) at line `i`.
pub(crate) fn parse_unified(cx: &mut Cx, r: &Region, i: usize) -> usize {
    let mut op = FileOp::default();
    read_file_header(cx, i, &mut op);
    let path = op.new.clone().or(op.old.clone()).unwrap_or_default();
    let (hunks, next, cut) = parse_hunks(cx, r, i + 2, &path);
    let cut = cut || header_cut_off(cx, r, &op, &hunks, next);
    build(cx, op, hunks, Format::Unified, cut);
    next
}

/// Reads hunks (or a header-less body) at line `i` for `path`, named by the enclosing fence.
pub(crate) fn parse_orphan(cx: &mut Cx, r: &Region, i: usize, path: &str) -> usize {
    let op = FileOp {
        old: Some(path.to_string()),
        new: Some(path.to_string()),
        ..FileOp::default()
    };
    if cx.src.line(i).starts_with("@@") {
        let (hunks, next, cut) = parse_hunks(cx, r, i, path);
        build(cx, op, hunks, Format::Unified, cut);
        return next;
    }
    let h = HunkHeader::default();
    let b = body::read_body(&cx.src, i, r.end, None, diff_terminator);
    let cut = cut_hunk(cx, r, h.counts(), &b);
    let quoted = ends_in_quoted_line(cx, r, &b);
    let next = b.next.max(i + 1);
    cx.note(format!(
        "{path}: diff body without hunk header; read as one hunk"
    ));
    let mut hunks: Vec<Hunk> = finish_hunk(cx, path, 1, &h, b).into_iter().collect();
    for hunk in &mut hunks {
        hunk.cut_line = quoted;
    }
    build(cx, op, hunks, Format::Unified, cut);
    next
}

/// Skips a hunk that has no file to belong to.
pub(crate) fn skip_orphan(cx: &mut Cx, r: &Region, i: usize) -> usize {
    let h = parse_hunk_header(cx.src.line(i)).unwrap_or_default();
    let b = body::read_body(&cx.src, i + 1, r.end, h.counts(), diff_terminator);
    b.next.max(i + 1)
}

#[cfg(test)]
#[path = "diff_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
