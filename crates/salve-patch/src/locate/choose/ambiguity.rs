//! Refusals that name several places: the candidates a hunk fits, each shown with how it
//! differs from the quote, and a message that says what would tell them apart.

use crate::diag::char_diff;
use crate::edit::{Hunk, LineKind};
use crate::locate::choose::plan::{range, window_text, Edit, Plan, SHOWN};
use crate::locate::{pre_image, Placement};
use crate::report::{Candidate, HunkReport, Rung, Status};
use crate::text::Doc;

fn expected_text(hunk: &Hunk) -> String {
    pre_image(&hunk.lines).0.join("\n")
}

/// A text replacement whose old text stands byte for byte inside lines `at`, while whole lines
/// match it elsewhere (re-spaced, or a piece that is a whole line there): two readings, refused
/// with both shown.
pub(crate) fn two_readings(
    doc: &Doc,
    hunk: &Hunk,
    i: usize,
    cands: &[Placement],
    at: (usize, usize),
) -> Plan {
    let mut plan = ambiguous(doc, hunk, i, cands);
    let exact = range(at.0, at.1);
    plan.report.candidates.insert(
        0,
        Candidate::new(
            exact,
            1.0,
            char_diff(&expected_text(hunk), &window_text(doc, at.0, at.1)),
        ),
    );
    let how = match cands.first().map(|c| c.rung) {
        Some(Rung::Exact) => "",
        _ => " only with other whitespace",
    };
    plan.report.message = Some(format!(
        "the old text stands exactly inside line {}, and as whole lines{how} at line {}; quote the place you mean with more of its text",
        exact.start,
        plan.report.candidates.get(1).map_or(0, |c| c.lines.start)
    ));
    plan
}

pub(crate) fn ambiguous(doc: &Doc, hunk: &Hunk, i: usize, cands: &[Placement]) -> Plan {
    let mut report = HunkReport::new(i, Status::Ambiguous);
    report.rung = cands.first().map(|c| c.rung);
    let expected = expected_text(hunk);
    report.candidates = cands
        .iter()
        .take(SHOWN)
        .map(|c| {
            let (s, e) = c.range();
            Candidate::new(
                range(s, e),
                1.0,
                char_diff(&expected, &window_text(doc, s, e)),
            )
        })
        .collect();
    report.candidates_omitted = cands.len().saturating_sub(SHOWN);
    let places: Vec<String> = cands
        .iter()
        .take(6)
        .map(|c| {
            let r = range(c.range().0, c.range().1);
            format!("{}-{}", r.start, r.end)
        })
        .collect();
    report.message = Some(match first_changed(hunk, cands) {
        // One span read several ways: the quote left out a line beside the changed ones.
        Some(lines) => format!(
            "the hunk fits lines {} in {} ways, with a line it leaves out on one side or the other of the lines it changes (the first changed line would be {}); quote the lines around the change exactly as the file has them",
            places[0],
            cands.len(),
            lines.join(" or ")
        ),
        None => format!(
            "the hunk matches {} places (lines {}); include more surrounding lines, a scope line, or correct line numbers so only one place fits",
            cands.len(),
            places.join(", ")
        ),
    });
    Plan {
        report,
        edit: Edit::Nothing,
    }
}

/// When every candidate spans the same lines, the 1-based file line each would remove first.
fn first_changed(hunk: &Hunk, cands: &[Placement]) -> Option<Vec<String>> {
    let same = cands.windows(2).all(|w| w[0].range() == w[1].range());
    let k = hunk
        .lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .position(|l| l.kind == LineKind::Remove)?;
    let lines = cands
        .iter()
        .take(6)
        .filter_map(|c| c.fit.map.get(k).map(|s| (s.start + 1).to_string()))
        .collect();
    (same && cands.len() > 1).then_some(lines)
}
