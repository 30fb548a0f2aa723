//! The decision for one hunk ([`Plan`]) and the small helpers the rungs that make it share.
//!
//! It sits below [`crate::locate::choose::place`] and [`crate::locate::rungs::substring`], so that both build plans without
//! depending on each other.

use crate::locate::Placement;
use crate::ops::Op;
use crate::report::{HunkReport, LineRange};
use crate::text::Doc;

/// What to do with one hunk.
#[derive(Clone, Debug)]
pub(crate) enum Edit {
    Place(Placement),
    /// Line operations computed elsewhere (the 3-way rung), with the final-newline state they
    /// ask for when they reach the end of the file.
    Ops {
        ops: Vec<Op>,
        eof: Option<bool>,
    },
    Nothing,
}

/// The decision for one hunk.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub report: HunkReport,
    pub edit: Edit,
}

/// How many candidates a failure report shows.
pub(crate) const SHOWN: usize = 3;

/// `[start, end)` as the report's 1-based inclusive range; an insertion point `[s, s)` reads as
/// the line the new lines will occupy.
pub(crate) fn range(start: usize, end: usize) -> LineRange {
    LineRange {
        start: start + 1,
        end: end.max(start + 1),
    }
}

/// Lines `[s, e)` of `doc` joined with `\n`, as a candidate's text in a report.
pub(crate) fn window_text(doc: &Doc, s: usize, e: usize) -> String {
    (s..e.min(doc.len()))
        .map(|k| doc.line(k))
        .collect::<Vec<_>>()
        .join("\n")
}
