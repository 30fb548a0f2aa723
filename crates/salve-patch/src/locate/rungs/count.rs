//! Counted text replacements: an edit that says how many occurrences it replaces (Claude Code's
//! and OpenCode's `replace_all`, Gemini CLI's `expected_replacements`).
//!
//! The count is the agent's own check, so it is held exactly: the old text is counted as a
//! byte-exact substring (CRLF read as LF, occurrences not overlapping, as the agents' tools count
//! them), and a count other than the one asked for (none at all for `replace_all`) refuses the
//! hunk with both numbers. No looser rung is tried: a count found by fuzzy matching would not be
//! the count the agent asked for. Occurrences on the same or touching lines become one line
//! operation, others one each, with the text around them kept.

use crate::edit::{Occurrences, TextPair};
use crate::locate::choose::plan::{range, Edit, Plan};
use crate::locate::rungs::substring::{replace_op, Flat};
use crate::ops::Op;
use crate::report::{HunkReport, Rung, Status};
use crate::text::Doc;

/// Places hunk `i`, a replacement of `pair` that must replace `want` occurrences.
pub(crate) fn by_count(
    doc: &Doc,
    flat: &Flat,
    pair: &TextPair,
    want: Occurrences,
    i: usize,
) -> Plan {
    let old = pair.old.replace("\r\n", "\n");
    let new = pair.new.replace("\r\n", "\n");
    let hits: Vec<usize> = if old.is_empty() {
        Vec::new()
    } else {
        flat.text.match_indices(&old).map(|(k, _)| k).collect()
    };
    let ok = match want {
        Occurrences::All => !hits.is_empty(),
        Occurrences::Exactly(n) => hits.len() == n,
    };
    let (Some(&first), true) = (hits.first(), ok) else {
        let asked = match want {
            Occurrences::All => "at least one occurrence (replace_all)".to_string(),
            Occurrences::Exactly(n) => format!("exactly {n} occurrence(s)"),
        };
        let mut report = HunkReport::new(
            i,
            if hits.is_empty() {
                Status::NotFound
            } else {
                Status::Ambiguous
            },
        );
        report.rung = Some(Rung::Substring);
        report.message = Some(format!(
            "the edit asks for {asked} of its old text, byte for byte; the file has {}",
            hits.len()
        ));
        return Plan {
            report,
            edit: Edit::Nothing,
        };
    };
    // Occurrences on the same or touching lines share one operation; others get their own, so
    // that another hunk between two occurrences does not overlap this one.
    let mut ops: Vec<Op> = Vec::new();
    let mut group = (first, first + old.len());
    for &h in hits.iter().skip(1).chain(std::iter::once(&usize::MAX)) {
        let touching = h != usize::MAX
            && flat.lines_of(h, h + old.len()).0 < flat.lines_of(group.0, group.1).1;
        if touching {
            group.1 = h + old.len();
            continue;
        }
        let span = flat
            .text
            .get(group.0..group.1)
            .unwrap_or("")
            .replace(&old, &new);
        let op = replace_op(doc, flat, group.0, group.1, &span);
        ops.push(Op { hunk: i, ..op });
        if h != usize::MAX {
            group = (h, h + old.len());
        }
    }
    let (start, end) = (
        ops.first().map_or(0, |o| o.start),
        ops.last().map_or(0, |o| o.end),
    );
    let mut report = HunkReport::new(i, Status::Applied);
    report.rung = Some(Rung::Substring);
    report.lines = Some(range(start, end));
    Plan {
        report,
        edit: Edit::Ops { ops, eof: None },
    }
}
