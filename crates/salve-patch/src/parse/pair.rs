//! Lowering an old/new text pair to an edit, shared by the SEARCH/REPLACE and the old/new JSON
//! readers.
//!
//! A pair is lowered to a single hunk by a line diff of the old text against the new text, so
//! the pre-image is exactly the old text and the post-image exactly the new text; the diff only
//! decides which lines are context.

use super::body::truncate;
use super::cx::Cx;
use super::sanitize;
use crate::edit::{FileChange, FileEdit, Format, Hunk, HunkLine, IssueKind, LineKind, TextPair};
use similar::{capture_diff_slices, Algorithm, DiffOp};

/// Blocks whose changed middle is larger than this many lines are lowered without a diff
/// (all removed, then all added), which keeps the work bounded for any input.
const DIFF_LIMIT: usize = 2000;

/// Lowers a search/replace pair to hunk lines: common lines are context.
pub(crate) fn lower(search: &[&str], replace: &[&str]) -> Vec<HunkLine> {
    let pre = search
        .iter()
        .zip(replace)
        .take_while(|(a, b)| a == b)
        .count();
    let max_suf = search.len().min(replace.len()) - pre;
    let suf = search
        .iter()
        .rev()
        .zip(replace.iter().rev())
        .take(max_suf)
        .take_while(|(a, b)| a == b)
        .count();
    let a = &search[pre..search.len() - suf];
    let b = &replace[pre..replace.len() - suf];
    let mut out: Vec<HunkLine> = search[..pre]
        .iter()
        .map(|t| HunkLine::new(LineKind::Context, *t))
        .collect();
    let removed = |out: &mut Vec<HunkLine>, s: &[&str]| {
        out.extend(s.iter().map(|t| HunkLine::new(LineKind::Remove, *t)));
    };
    let added = |out: &mut Vec<HunkLine>, s: &[&str]| {
        out.extend(s.iter().map(|t| HunkLine::new(LineKind::Add, *t)));
    };
    if a.is_empty() || b.is_empty() || a.len() + b.len() > DIFF_LIMIT {
        removed(&mut out, a);
        added(&mut out, b);
    } else {
        for op in capture_diff_slices(Algorithm::Myers, a, b) {
            match op {
                DiffOp::Equal { old_index, len, .. } => out.extend(
                    a.iter()
                        .skip(old_index)
                        .take(len)
                        .map(|t| HunkLine::new(LineKind::Context, *t)),
                ),
                DiffOp::Delete {
                    old_index, old_len, ..
                } => removed(
                    &mut out,
                    a.get(old_index..old_index + old_len).unwrap_or(&[]),
                ),
                DiffOp::Insert {
                    new_index, new_len, ..
                } => added(
                    &mut out,
                    b.get(new_index..new_index + new_len).unwrap_or(&[]),
                ),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    removed(
                        &mut out,
                        a.get(old_index..old_index + old_len).unwrap_or(&[]),
                    );
                    added(
                        &mut out,
                        b.get(new_index..new_index + new_len).unwrap_or(&[]),
                    );
                }
            }
        }
    }
    out.extend(
        search[search.len() - suf..]
            .iter()
            .map(|t| HunkLine::new(LineKind::Context, *t)),
    );
    blanks_first(&mut out);
    out
}

/// Slide each run of removed (or added) lines that opens with a blank line down past an equal
/// blank context line after it, so that a blank line both texts have right after the same
/// lines stays context there. The diff may pair it with another blank further down instead;
/// against the text as quoted that is the same edit, but a blank the file lacks (the model's
/// quote had one more) is then read as removed, and its twin in the new text is written.
fn blanks_first(lines: &mut [HunkLine]) {
    let mut i = 0;
    while i < lines.len() {
        let kind = lines[i].kind;
        if kind == LineKind::Context {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < lines.len() && lines[j].kind == kind {
            j += 1;
        }
        let slides = j < lines.len()
            && lines[j].kind == LineKind::Context
            && lines[i].text.trim().is_empty()
            && lines[j].text == lines[i].text;
        if slides {
            lines[i].kind = LineKind::Context;
            lines[j].kind = kind;
            i += 1;
        } else {
            i = j;
        }
    }
}

/// Strips line-number prefixes from one side when all its lines have them.
fn denumber<'a>(
    cx: &mut Cx,
    path: &str,
    what: &str,
    lines: Vec<&'a str>,
) -> (Vec<&'a str>, Option<u64>) {
    match sanitize::strip_line_numbers(&lines) {
        Some((first, out)) => {
            cx.note(format!(
                "{path}: line-number prefixes stripped from the {what} text"
            ));
            (out, Some(first))
        }
        None => (lines, None),
    }
}

/// Lowers one old/new pair for `path` to an edit (shared with the JSON reader). An old side
/// with no lines (or only blank ones) creates the file. `line_end` says both sides ended with a
/// newline (the replaced text runs to the end of a line); the hunk keeps the pair as text so
/// the applier can also replace it mid-line.
pub(crate) fn push_pair(
    cx: &mut Cx,
    path: &str,
    search: Vec<&str>,
    replace: Vec<&str>,
    start_line: Option<usize>,
    format: Format,
    line_end: bool,
) {
    let (search, numbered) = denumber(cx, path, "search", search);
    let (replace, _) = denumber(cx, path, "replace", replace);
    if search.iter().all(|l| l.trim().is_empty()) {
        // A SEARCH/REPLACE block with nothing on either side names no change: read as "create
        // an empty file", a stray pair of markers (quoted in a file, or a cut reply) would create
        // one under whatever word stood before them.
        if format == Format::SearchReplace && replace.iter().all(|l| l.trim().is_empty()) {
            cx.issue(
                IssueKind::Malformed,
                Some(path),
                "a SEARCH/REPLACE block with nothing on either side names no change".to_owned(),
            );
            return;
        }
        let mut content = String::new();
        for l in &replace {
            content.push_str(l);
            content.push('\n');
        }
        if let Some(l) = replace
            .iter()
            .find(|l| crate::placeholder::is_lazy(l) || crate::placeholder::is_comment_dots(l))
        {
            cx.issue(
                IssueKind::Lazy,
                Some(path),
                format!("new file line {:?} stands in for code", truncate(l, 60)),
            );
        }
        let final_newline = !content.is_empty();
        cx.edits.push(FileEdit {
            path: path.to_string(),
            change: FileChange::Create {
                content,
                final_newline,
            },
            format,
            mode: None,
        });
        return;
    }
    let hunk = Hunk {
        lines: lower(&search, &replace),
        old_start: start_line.or(numbered.and_then(|n| usize::try_from(n).ok())),
        substring: Some(TextPair {
            old: join_text(&search, line_end),
            new: join_text(&replace, line_end),
        }),
        ..Hunk::default()
    };
    if let Some(l) = sanitize::lazy_added_line(std::slice::from_ref(&hunk)) {
        cx.issue(
            IssueKind::Lazy,
            Some(path),
            format!("replacement line {:?} stands in for code", truncate(l, 60)),
        );
    }
    cx.edits.push(FileEdit {
        path: path.to_string(),
        change: FileChange::Modify { hunks: vec![hunk] },
        format,
        mode: None,
    });
}

/// Lines joined with `\n` (a CR the reply left on a line dropped), with a final `\n` when
/// `line_end`.
fn join_text(lines: &[&str], line_end: bool) -> String {
    let mut out = String::new();
    for (k, l) in lines.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        out.push_str(l.strip_suffix('\r').unwrap_or(l));
    }
    if line_end && !lines.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn kinds(lines: &[HunkLine]) -> String {
        lines
            .iter()
            .map(|l| match l.kind {
                LineKind::Context => ' ',
                LineKind::Remove => '-',
                LineKind::Add => '+',
            })
            .collect()
    }

    #[test]
    fn a_blank_both_texts_have_after_the_same_line_stays_context_there() {
        let line = |k, t| HunkLine::new(k, t);
        use LineKind::{Add, Context, Remove};
        // `a`, blank, `x`, blank, `b` to `a`, blank, `b`, diffed with the first blank removed.
        let mut lines = vec![
            line(Context, "a"),
            line(Remove, ""),
            line(Remove, "x"),
            line(Context, ""),
            line(Context, "b"),
        ];
        blanks_first(&mut lines);
        assert_eq!(kinds(&lines), "  -- ");
        // Added runs slide the same way; a run not followed by an equal blank stays.
        let mut lines = vec![
            line(Context, "a"),
            line(Add, ""),
            line(Add, "y"),
            line(Context, ""),
            line(Remove, ""),
            line(Remove, "z"),
            line(Context, "b"),
        ];
        blanks_first(&mut lines);
        assert_eq!(kinds(&lines), "  ++-- ");
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["a", "", "y", "", "", "z", "b"]);
    }
}
