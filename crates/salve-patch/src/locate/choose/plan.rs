//! The decision for one hunk ([`Plan`]) and the small helpers the rungs that make it share.
//!
//! It sits below [`crate::locate::choose::place`] and [`crate::locate::rungs::substring`], so that both build plans without
//! depending on each other.

use crate::locate::Placement;
use crate::ops::Op;
use crate::report::{HunkReport, LineRange, Status};
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

/// Placed: hunk `i` goes where `p` says.
pub(crate) fn placed(i: usize, p: Placement) -> Plan {
    let mut report = HunkReport::new(i, Status::Applied);
    let (s, e) = p.range();
    report.rung = Some(p.rung);
    report.lines = Some(range(s, e));
    report.similarity = p.similarity;
    report.margin = p.margin;
    Plan {
        report,
        edit: Edit::Place(p),
    }
}

/// Refused: the edit's result stands at lines `[start, end)`, and its old text fits across them
/// only with outer context left out or markers read as cuts, or (a deletion) elsewhere only
/// loosely, or only with a line changed (the similar rung).
pub(crate) fn applied_or_not(i: usize, start: usize, end: usize) -> Plan {
    let mut report = HunkReport::new(i, Status::Ambiguous);
    let r = range(start, end);
    report.lines = Some(r);
    report.message = Some(format!(
        "the edit's result already stands at lines {}-{}, and its old text fits only loosely (across them with outer context left out, `...` lines read as cuts or braces read at another indentation; elsewhere at other whitespace or with a line left out; or with a line changed): whether it is applied already cannot be told; re-read the file",
        r.start, r.end
    ));
    Plan {
        report,
        edit: Edit::Nothing,
    }
}

/// Refused: the lines hunk `i` changes stand nowhere.
pub(crate) fn not_found(i: usize) -> Plan {
    let mut report = HunkReport::new(i, Status::NotFound);
    report.message = Some("the lines this hunk changes were not found in the file".into());
    Plan {
        report,
        edit: Edit::Nothing,
    }
}
