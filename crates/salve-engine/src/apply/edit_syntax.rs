//! No edit syntax in the result (DESIGN.md §3.3): a line about to be written that the reply
//! holds as syntax (a SEARCH/REPLACE marker, a fence or path line, a diff or Codex header, a
//! Roo line marker) and that the old file did not have refuses the file with status
//! `edit_syntax`, naming the line. Which lines are syntax, and which added lines a format marks
//! as data, is `salve_patch::ReplySyntax`'s.
//!
//! Like the control-character check beside it, this reads what is about to be written, never
//! the reader or rung that produced it, so no path bypasses it. Edits given as a JSON value or
//! already built carry no reply text: their strings are data, and nothing is checked.

use std::borrow::Cow;

use salve_patch::{ReplySyntax, Status};

use super::control::old_texts;
use super::plan::{Change, FilePlan};
use super::stop::{refuse, Stop};
use crate::transaction::{Content, Op};

/// Refuse the change `ops` make to `path` when their new text holds a syntax line of the reply.
pub(super) fn judge(
    syntax: Option<&ReplySyntax>,
    path: &str,
    plan: &FilePlan,
    ops: &[Op],
) -> Result<(), Stop> {
    let Some(syntax) = syntax else {
        return Ok(());
    };
    let hunks = match &plan.change {
        Change::Modify(hunks) | Change::Rename { hunks, .. } => hunks.as_slice(),
        _ => &[],
    };
    let mut pieces: Vec<Cow<'_, str>> = Vec::new();
    for op in ops {
        match op {
            Op::Write {
                content: Content::Spliced { splice, .. },
                ..
            } => pieces.extend(splice.new_pieces().map(Cow::Borrowed)),
            Op::Write {
                content: Content::Bytes(bytes),
                ..
            } => pieces.push(String::from_utf8_lossy(bytes)),
            Op::Delete { .. } => {}
        }
    }
    if pieces.is_empty() {
        return Ok(());
    }
    let notebook = is_notebook(path);
    // A notebook's cell lines are written inside JSON strings: the check reads them decoded,
    // beside the old cells' lines.
    if notebook {
        let decoded: Vec<String> = pieces
            .iter()
            .filter_map(|p| salve_patch::notebook_source_value(p))
            .collect();
        pieces.extend(decoded.into_iter().map(Cow::Owned));
    }
    // The old texts are read only when a line about to be written is suspect: a clean edit of
    // a large file never copies it.
    let old = || {
        let mut old: String = old_texts(ops)
            .iter()
            .map(|t| String::from_utf8_lossy(t))
            .collect::<Vec<_>>()
            .join("\n");
        if notebook {
            if let Some(cells) = salve_patch::notebook_sources(&old) {
                old.push('\n');
                old.push_str(&cells);
            }
        }
        Cow::Owned(old)
    };
    let pieces: Vec<&str> = pieces.iter().map(|p| p.as_ref()).collect();
    let Some(line) = syntax.first_written_lazy(path, old, &pieces, hunks, plan.format) else {
        return Ok(());
    };
    refuse(
        Status::EditSyntax,
        format!(
            "the edit would write the line `{}` into {path}; the reply holds that line as edit \
             syntax (a marker, fence, path or header line, or a diff line read both as removed \
             and as added), and the file did not have it, so nothing was written. Send the \
             edit with that line clearly as content, or without it.",
            line.trim()
        ),
    )
}

/// True for a Jupyter notebook's path (`.ipynb`, in any case).
fn is_notebook(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}
