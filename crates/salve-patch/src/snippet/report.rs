//! What the report says about each region of a snippet: where it was anchored and how, or why
//! it could not be, with the places it fits so the model can add a line of context.

use super::anchor::{How, Miss, Placement, MAX_UNEXPLAINED};
use super::marker::Region;
use crate::report::{Candidate, HunkReport, LineRange, Rung, Status};

/// Places listed for one region; the rest are counted.
const MAX_LISTED: usize = 5;

fn name(k: usize, r: &Region) -> String {
    format!(
        "region {} (snippet lines {}-{})",
        k + 1,
        r.first + 1,
        r.first + r.lines.len()
    )
}

fn range(p: &Placement) -> LineRange {
    LineRange {
        start: p.start + 1,
        end: p.end.max(p.start + 1),
    }
}

/// The report of region `k`, placed at `p`; `changed` is (file lines removed or replaced,
/// lines added).
pub(super) fn placed(k: usize, r: &Region, p: &Placement, changed: (usize, usize)) -> HunkReport {
    let status = if changed == (0, 0) {
        Status::AlreadyApplied
    } else {
        Status::Applied
    };
    let mut rep = HunkReport::new(k, status);
    rep.rung = Some(match p.how {
        How::Exact => Rung::Exact,
        How::Whitespace => Rung::TrailingWs,
    });
    rep.lines = Some(range(p));
    let how = match p.how {
        How::Exact => "exact",
        How::Whitespace => "trailing whitespace aside",
    };
    let head = if r.lead {
        format!("{} unchanged line(s) at its start", p.head)
    } else {
        "the file's first line".to_string()
    };
    let tail = if r.trail {
        format!("{} at its end", p.tail)
    } else {
        "the file's end".to_string()
    };
    let inside = match changed {
        (0, 0) => "nothing changed inside (already applied)".to_string(),
        (0, a) => format!("{a} line(s) added inside"),
        (d, 0) => format!("{d} line(s) removed inside"),
        (d, a) => format!("{d} line(s) changed inside into {a}"),
    };
    rep.message = Some(format!(
        "{}: anchored at file lines {}-{} by {head} and {tail}, {how}; {inside}",
        name(k, r),
        rep.lines.map_or(0, |l| l.start),
        rep.lines.map_or(0, |l| l.end),
    ));
    rep
}

/// A snippet of markers only says nothing about the file.
pub(super) fn only_markers() -> HunkReport {
    let mut rep = HunkReport::new(0, Status::Malformed);
    rep.message = Some("the snippet holds only markers, no code to merge".into());
    rep
}

/// Region `k` fits nowhere, for the reason `miss`.
pub(super) fn missed(k: usize, r: &Region, miss: &Miss) -> HunkReport {
    let (status, why) = match miss {
        Miss::NoAnchor { head } => (
            Status::NotFound,
            format!(
                "no unchanged line at its {} stands in the file with a letter or digit (a blank line or a lone brace fits anywhere); start and end the region with a few lines copied from the file",
                if *head { "start" } else { "end" }
            ),
        ),
        Miss::Cut { head: true, line } => (
            Status::Truncated,
            format!(
                "it starts like file line {} but no marker stands before it, so lines 1-{} would be lost; put a marker such as `// ... existing code ...` before it",
                line + 1,
                line
            ),
        ),
        Miss::Cut { head: false, line } => (
            Status::Truncated,
            format!(
                "it ends like file line {} but no marker stands after it, so the lines after it would be lost; put a marker such as `// ... existing code ...` after it",
                line + 1
            ),
        ),
        Miss::Lone => (
            Status::NotFound,
            "it is one line that stands in the file as it is: it changes nothing, and the blank lines beside it may stand for lines it deletes; show the change with two or three lines copied from the file around it".to_string(),
        ),
        Miss::Blanks => (
            Status::NotFound,
            "it is blank lines before the first marker or after the last, so it says the file begins or ends with them, and the file does not; leave them out, or copy the file's own first or last lines".to_string(),
        ),
        Miss::Crossed => (
            Status::NotFound,
            "its first lines and its last lines stand in the file, but never the first before the last; copy the lines around the change from the file as they are".to_string(),
        ),
        Miss::Short { head, places } => (
            Status::Ambiguous,
            format!(
                "its one unchanged line at its {} stands at {}; add a line of context that only one of them has",
                if *head { "start" } else { "end" },
                at_lines(places)
            ),
        ),
        Miss::Several { head, places } => (
            Status::Ambiguous,
            format!(
                "the unchanged lines at its {} fit {}; add a line of context that only one of them has",
                if *head { "start" } else { "end" },
                at_lines(places)
            ),
        ),
        Miss::Layout { at, shown } => (
            Status::NotFound,
            format!(
                "it fits at file lines {}-{}, but the snippet shows {} blank line(s) between the marker and its first line and {} between its last line and the marker, and the file has fewer there; copy the blank lines as the file has them, or show the line beyond them",
                at.0 + 1,
                at.1,
                shown.0,
                shown.1
            ),
        ),
        Miss::Unexplained { lines, lost } => (
            Status::NotFound,
            format!(
                "its anchors at file lines {}-{} leave {lost} file lines in a row with nothing in their place and no marker standing for them (at most {MAX_UNEXPLAINED}); show those lines, or put a marker where they are kept",
                lines.0 + 1,
                lines.1
            ),
        ),
    };
    let mut rep = HunkReport::new(k, status);
    rep.message = Some(format!("{}: {why}", name(k, r)));
    match miss {
        Miss::Unexplained { lines, .. } | Miss::Layout { at: lines, .. } => {
            rep.candidates.push(candidate(lines.0, lines.1))
        }
        Miss::Several { places, .. } | Miss::Short { places, .. } => {
            for &l in places.iter().take(MAX_LISTED) {
                rep.candidates.push(candidate(l, l + 1));
            }
            rep.candidates_omitted = places.len().saturating_sub(MAX_LISTED);
        }
        _ => {}
    }
    rep
}

/// `line 12`, or `2 places (lines 12, 30)`.
fn at_lines(places: &[usize]) -> String {
    let list = places
        .iter()
        .take(MAX_LISTED)
        .map(|l| (l + 1).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    match places.len() {
        1 => format!("line {list}"),
        n => format!("{n} places (lines {list})"),
    }
}

fn candidate(start: usize, end: usize) -> Candidate {
    Candidate::new(
        LineRange {
            start: start + 1,
            end: end.max(start + 1),
        },
        1.0,
        String::new(),
    )
}

fn listed(rep: &mut HunkReport, places: &[Placement]) {
    for p in places.iter().take(MAX_LISTED) {
        rep.candidates.push(candidate(p.start, p.end));
    }
    rep.candidates_omitted = places.len().saturating_sub(MAX_LISTED);
}

fn places(places: &[Placement]) -> String {
    places
        .iter()
        .take(MAX_LISTED)
        .map(|p| format!("{}-{}", p.start + 1, p.end))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every region fits somewhere, but not in the snippet's order.
pub(super) fn out_of_order(regions: &[Region], options: &[Vec<Placement>]) -> Vec<HunkReport> {
    regions
        .iter()
        .zip(options)
        .enumerate()
        .map(|(k, (r, o))| {
            let mut rep = HunkReport::new(k, Status::NotFound);
            rep.message = Some(format!(
                "{}: fits at file lines {}, but the regions fit the file only out of order; write them in the file's order",
                name(k, r),
                places(o)
            ));
            listed(&mut rep, o);
            rep
        })
        .collect()
}

/// Several orders fit: each region that fits in more than one place, with its places.
pub(super) fn ambiguous(regions: &[Region], alive: &[Vec<Placement>]) -> Vec<HunkReport> {
    regions
        .iter()
        .zip(alive)
        .enumerate()
        .filter(|(_, (_, a))| a.len() > 1)
        .map(|(k, (r, a))| {
            let mut rep = HunkReport::new(k, Status::Ambiguous);
            rep.message = Some(format!(
                "{}: its unchanged lines fit {} places (file lines {}); add a line of context that only one of them has",
                name(k, r),
                a.len(),
                places(a)
            ));
            listed(&mut rep, a);
            rep
        })
        .collect()
}
