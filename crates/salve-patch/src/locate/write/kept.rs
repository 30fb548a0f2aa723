//! A line a hunk removes and adds back unchanged is the file's line, trailing whitespace and all.
//!
//! Line diffs of old/new text pairs often show a line the model kept as removed and re-added
//! (other lines moved around it). Quoted lines match the file up to trailing whitespace at the
//! trailing-whitespace rung and looser, so the reply's copy may carry spaces the file does not
//! have (or lack ones it has); written as the model sent it, the kept line would change. When
//! the re-added text is byte for byte a removed line of the same hunk, and that line matched one
//! file line differing only after its last visible character, the file's line is written.

use crate::edit::{HunkLine, LineKind};
use crate::locate::{pre_image, Placement};
use crate::ops::Op;
use crate::text::Trim as _;
use crate::text::{strip_cr, Doc};

/// Replace model-written lines of `ops` that re-add a removed line unchanged by the file line
/// that removed line matched.
pub(crate) fn keep_file_lines(doc: &Doc, lines: &[HunkLine], p: &Placement, ops: &mut [Op]) {
    let (pre, _) = pre_image(lines);
    let removed: Vec<(&str, &str)> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .zip(pre.iter().zip(&p.fit.map))
        .filter(|(l, (_, span))| {
            l.kind == LineKind::Remove && span.end == span.start + 1 && span.start < doc.len()
        })
        .map(|(_, (text, span))| (*text, doc.line(span.start)))
        .filter(|(text, file)| text.trim_end_ws() == file.trim_end_ws())
        .collect();
    // Removed lines that match their file line byte for byte count too: a blank removed twice,
    // once over `` and once over `  `, leaves the re-added blank's file text open.
    if removed.iter().all(|(text, file)| text == file) {
        return;
    }
    let written = ops
        .iter_mut()
        .flat_map(|o| o.insert.iter_mut())
        .filter(|n| n.eol.is_none());
    for n in written {
        let t = strip_cr(&n.text);
        // Only when every removed line with this text matched the same file text.
        let mut files = removed.iter().filter(|(r, _)| *r == t).map(|(_, f)| *f);
        if let Some(first) = files.next() {
            if files.all(|f| f == first) {
                n.text = first.to_string();
            }
        }
    }
}
