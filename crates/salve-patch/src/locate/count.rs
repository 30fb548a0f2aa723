//! Counted text replacements: an edit that says how many occurrences it replaces (Claude Code's
//! and OpenCode's `replace_all`, Gemini CLI's `expected_replacements`).
//!
//! The count is the agent's own check, so it is held exactly: the old text is counted as a
//! byte-exact substring (CRLF read as LF, occurrences not overlapping, as the agents' tools count
//! them), and a count other than the one asked for (none at all for `replace_all`) refuses the
//! hunk with both numbers. No looser rung is tried: a count found by fuzzy matching would not be
//! the count the agent asked for. All occurrences become one line operation from the first to
//! the last, with the text between them kept.

use super::plan::{range, Edit, Plan};
use super::substring::{replace_op, Flat};
use crate::edit::{Occurrences, TextPair};
use crate::report::{HunkReport, Rung, Status};
use crate::text::Doc;

/// Places hunk `i`, a replacement of `pair` that must replace `want` occurrences.
pub fn by_count(doc: &Doc, flat: &Flat, pair: &TextPair, want: Occurrences, i: usize) -> Plan {
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
    let (Some(&first), Some(&last), true) = (hits.first(), hits.last(), ok) else {
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
    let end = last + old.len();
    let span = flat.text.get(first..end).unwrap_or("").replace(&old, &new);
    let op = replace_op(doc, flat, first, end, &span);
    let mut report = HunkReport::new(i, Status::Applied);
    report.rung = Some(Rung::Substring);
    report.lines = Some(range(op.start, op.end));
    Plan {
        report,
        edit: Edit::Ops {
            ops: vec![crate::ops::Op { hunk: i, ..op }],
            eof: None,
        },
    }
}
