//! The similar rung, last on the ladder: the old text read with a line changed or left out,
//! placed only where one window stands clearly above the rest and the edit's result stands
//! nowhere; otherwise a refusal that lists the closest windows.

use crate::diag::char_diff;
use crate::edit::{Hunk, LineKind};
use crate::locate::choose::plan::{
    applied_or_not, not_found, placed, range, window_text, Plan, SHOWN,
};
use crate::locate::rungs::gap_readings::{reads_better_gapped, Changes};
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::Fit;
use crate::locate::rungs::similar::{accept, windows};
use crate::locate::rungs::window::Window;
use crate::locate::{post_image, pre_image, Placement};
use crate::report::{Candidate, Rung, Status};

/// Where the hunk's result stands, byte for byte up to trailing whitespace, when that can vouch
/// for an applied edit: the first such place. The similar rung reads the old text with a line
/// changed; a file that holds the edit's result exactly is as well read as a retried edit whose
/// old text is gone (a replacement inside a run of alike lines, `usize,` five times, fits the run
/// one line off). Standing in several places it says no less: each is a place where the edit
/// may have been made, and the similar rung's guess is one more reading (a deletion retried in
/// a file of alike blocks fits the next block, whose extra line reads as the changed one).
/// A deletion's result is context that stood before the edit too, so it vouches only with two
/// lines of words in it, where a run of braces and blank lines stands all over a file.
fn result_stands(idx: &FileIndex, hunk: &Hunk) -> Option<(usize, usize)> {
    let form = crate::text::Form::TrimEnd;
    let adds = hunk.lines.iter().any(|l| l.kind == LineKind::Add);
    let post = post_image(&hunk.lines);
    let worded = post.iter().filter(|l| crate::text::has_words(l)).count();
    if !adds && worded < 2 {
        return None;
    }
    if !crate::locate::applied::applied_evidence::post_image_vouches(&hunk.lines, form) {
        return None;
    }
    let (pre, _) = pre_image(&hunk.lines);
    let added = crate::locate::added_in_post(&hunk.lines);
    crate::locate::applied::applied_evidence::post_hits_in(idx, form, &pre, &post, &added, false)
        .first()
        .copied()
}

/// The similar rung, or a refusal listing the closest windows.
pub(crate) fn similar(idx: &FileIndex, hunk: &Hunk, i: usize) -> Plan {
    let doc = idx.doc;
    let (pre, _) = pre_image(&hunk.lines);
    let wins = windows(idx, &pre, hunk.old_start);
    let changes = Changes::of(&hunk.lines);
    if hunk.maybe_added.is_empty() {
        if let Some((start, end)) = result_stands(idx, hunk) {
            return applied_or_not(i, start, end);
        }
        if let Some((_, margin)) = accept(idx, &pre, &wins, &changes) {
            let w = &wins[0];
            let pairs = (0..pre.len()).map(|k| (pre[k], doc.line(w.start + k)));
            let reindent =
                crate::locate::write::reindent::Reindent::infer(pairs, || idx.indents_with_tabs())
                    .unwrap_or_default();
            let fit = Fit {
                map: (0..pre.len())
                    .map(|k| crate::locate::rungs::search::Span::line(w.start + k))
                    .collect(),
                reindent,
                form: crate::text::Form::Canon,
            };
            let mut p = Placement::new(Rung::Similar, fit, None);
            p.similarity = Some(w.score);
            p.margin = Some(margin);
            return placed(i, p);
        }
    }
    let mut plan = not_found(i);
    let expected = pre.join("\n");
    // No line of a short quote stands in the file (a one-line quote with a typo): the nearest
    // lines are still shown, so the model can copy them. Shown only, never placed.
    let loose = if wins.is_empty() {
        crate::locate::rungs::similar::loose_windows(idx, &pre)
    } else {
        Vec::new()
    };
    plan.report.candidates = wins
        .iter()
        .chain(&loose)
        .take(SHOWN)
        .map(|w: &Window| {
            Candidate::new(
                range(w.start, w.start + w.len),
                (w.score * 1000.0).round() / 1000.0,
                char_diff(&expected, &window_text(doc, w.start, w.start + w.len)),
            )
        })
        .collect();
    let rival = wins
        .first()
        .filter(|w| w.score >= crate::locate::rungs::similar::MIN_SCORE)
        .and_then(|_| crate::locate::rungs::similar::gapped_rival(idx, &pre, &wins));
    if let (Some(best), Some(rival)) = (wins.first(), rival) {
        plan.report.status = Status::Ambiguous;
        plan.report.message = Some(format!(
            "the lines this hunk changes were not found as quoted; lines {}-{} and lines {}-{} each read as them with one line changed or left out, so the place is unclear; quote the lines around the change exactly as the file has them",
            best.start + 1,
            best.start + best.len,
            rival.start + 1,
            rival.start + rival.len + 1
        ));
    } else if let Some(best) = wins
        .first()
        .filter(|w| w.score >= crate::locate::rungs::similar::MIN_SCORE)
        .filter(|w| reads_better_gapped(idx, &pre, w, &changes))
    {
        plan.report.message = Some(format!(
            "the lines this hunk changes were not found as quoted; lines {}-{} read as them with one line left out, and where that line is decides where the change goes; quote the lines around the change exactly as the file has them",
            best.start.max(1),
            best.start + best.len + 1
        ));
    } else if let Some(best) = plan.report.candidates.first() {
        plan.report.message = Some(format!(
            "the lines this hunk changes were not found; the closest match is lines {}-{} (similarity {:.2}), which differ: {}",
            best.lines.start, best.lines.end, best.score, best.diff
        ));
    }
    plan
}
