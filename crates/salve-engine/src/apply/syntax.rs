//! The syntax check (DESIGN.md §3.2): after a file is placed and before anything is written, a
//! file that parsed cleanly and would not parse after the edit is refused with status `syntax`,
//! naming the error's line and the hunk whose new lines hold it or lie nearest to it, so the
//! model can fix that hunk in one round trip. The parsing rules (languages by extension, files
//! already broken not judged, a size cap) are `salve_syntax`'s.
//!
//! Cost: only edited files with a known extension are looked at, and the new text is built
//! only for them; the common case (the edit keeps the file clean) is one parse.

use std::ops::Range;
use std::path::Path;

use salve_patch::{FileReport, Splice, Status};
use salve_syntax::{check, Language, SyntaxError, Verdict};

use super::stop::{refuse, Stop};

/// Refuse the placed file when `splice` over `before` introduces a syntax error; mark the hunk
/// that caused it in `report`.
pub(super) fn judge(
    path: &str,
    before: &str,
    splice: &Splice,
    report: &mut FileReport,
) -> Result<(), Stop> {
    let Some(language) = Language::for_path(Path::new(path)) else {
        return Ok(());
    };
    let cap = language.max_checked_bytes();
    if before.len() > cap || splice.len() > cap {
        return Ok(());
    }
    let after = splice.materialize(before);
    let Verdict::Introduced(error) = check(Path::new(path), before, &after) else {
        return judge_cells(language, before, &after, report);
    };
    let quoted = after
        .lines()
        .nth(error.line.saturating_sub(1))
        .map(|l| format!("\n  {} | {}", error.line, l.trim_end()))
        .unwrap_or_default();
    let culprit = culprit(report, &splice.changed_lines(before), error.line);
    let hunk_part = match &culprit {
        Some((index, new)) => {
            mark_hunks(report, *index, &error, new);
            format!(
                " Hunk {} caused it (its new text is {} of the file after the edit): fix that \
                 hunk and send it again.",
                index + 1,
                lines_label(new)
            )
        }
        None => " Fix the new content there and send it again.".to_owned(),
    };
    // Nothing of a refused file counts as added or removed.
    report.added = 0;
    report.removed = 0;
    refuse(
        Status::Syntax,
        format!(
            "the file would not parse after the edit: {error}. It parsed cleanly before, so \
             nothing was written.{hunk_part}{quoted}"
        ),
    )
}

/// A Python notebook that still parses as JSON is judged on its code cells too: an edit placed
/// in a cell (or in the JSON strings) whose code parsed and does not after is refused, as the
/// same edit of a `.py` file is. A notebook whose cells already hold lines Python does not read
/// (IPython magics, shell escapes) is not judged, as for any file already broken.
fn judge_cells(
    language: Language,
    before: &str,
    after: &str,
    report: &mut FileReport,
) -> Result<(), Stop> {
    if language != Language::Notebook {
        return Ok(());
    }
    let (Some(old), Some(new)) = (
        salve_patch::notebook_python(before),
        salve_patch::notebook_python(after),
    ) else {
        return Ok(());
    };
    let Verdict::Introduced(error) = check(Path::new("cells.py"), &old, &new) else {
        return Ok(());
    };
    let quoted = new
        .lines()
        .nth(error.line.saturating_sub(1))
        .map(|l| format!("\n  {}", l.trim_end()))
        .unwrap_or_default();
    report.added = 0;
    report.removed = 0;
    refuse(
        Status::Syntax,
        format!(
            "the notebook's code cells would not parse after the edit: {error} (counting the \
             code cells' lines one after another). They parsed cleanly before, so nothing was \
             written. Fix the cell's new code and send it again.{quoted}"
        ),
    )
}

/// The hunk whose new lines hold line `error_line` (1-based, in the new text) or lie nearest to
/// it, with those new lines (0-based, half-open). `None` when the report has no placed hunks
/// (a whole file).
fn culprit(
    report: &FileReport,
    changes: &[(Range<usize>, usize)],
    error_line: usize,
) -> Option<(usize, Range<usize>)> {
    let error = error_line.saturating_sub(1);
    // Each change's place in the new text.
    let mut shift: isize = 0;
    let mut spans = Vec::with_capacity(changes.len());
    for (old, new_len) in changes {
        let start = old.start.saturating_add_signed(shift);
        spans.push((old.clone(), start..start + new_len));
        shift += *new_len as isize - old.len() as isize;
    }
    let distance = |new: &Range<usize>| {
        if new.contains(&error) || (new.is_empty() && new.start == error) {
            0
        } else if error < new.start {
            new.start - error
        } else {
            error + 1 - new.end.max(new.start + 1)
        }
    };
    let (old, new) = spans.iter().min_by_key(|(_, new)| distance(new))?;
    // The hunk placed over that change: its lines (1-based, inclusive, before the edit) cover
    // the change's start, or touch it for a pure insertion.
    let hunk = report.hunks.iter().find(|h| {
        h.lines
            .is_some_and(|l| l.start.saturating_sub(1) <= old.start && old.start <= l.end)
    })?;
    Some((hunk.index, new.clone()))
}

/// The culprit is marked `syntax`; the other placed hunks are `skipped`, as in any refused file.
fn mark_hunks(report: &mut FileReport, index: usize, error: &SyntaxError, new: &Range<usize>) {
    for hunk in &mut report.hunks {
        if hunk.index == index {
            hunk.status = Status::Syntax;
            hunk.message = Some(format!(
                "placed, but its new text ({}) does not parse: {error}",
                lines_label(new)
            ));
        } else if hunk.status.is_success() {
            hunk.status = Status::Skipped;
        }
    }
}

/// `line 3` or `lines 3-5`, 1-based, from 0-based half-open lines (an empty range names the
/// line it sits before).
fn lines_label(lines: &Range<usize>) -> String {
    if lines.end <= lines.start + 1 {
        format!("line {}", lines.start + 1)
    } else {
        format!("lines {}-{}", lines.start + 1, lines.end)
    }
}
