//! Placing every hunk of one file: the ladder per hunk, then the decisions that need the whole
//! file's view.
//!
//! 1. Every hunk runs the ladder ([`crate::locate::locate`]) against the original text.
//! 2. Hunks found in several places are narrowed by evidence: scope lines, anchors, and line
//!    hints consistent with the offsets at which the file's uniquely placed hunks were found.
//!    Pure insertions (no context) are placed by the same evidence only.
//! 3. Hunks still unplaced try the 3-way rung when the caller has the baseline the model read:
//!    the hunk is placed on the baseline, applied there, and that change is merged into the
//!    current text. A conflict is a refusal.
//! 4. Hunks not found at all try the similar rung last.
//!
//! Hunks lowered from text replacements (old/new JSON, SEARCH/REPLACE) whose pre-image is not
//! whole lines of the file try the [`crate::locate::rungs::substring`] rung before the looser rungs: old text
//! found once as a substring is replaced in place. A pure insertion pinned to the start or end
//! of the file is already applied when the file already starts or ends with its lines.
//!
//! The outcome is one [`Plan`] per hunk: a placement or ready-made line operations, or a refusal
//! with candidates and a message a model can act on.

use crate::edit::{Anchor, Hunk, LineKind};
use crate::locate::applied::applied_evidence::new_text_settled;
use crate::locate::choose::ambiguity::{ambiguous, two_readings};
use crate::locate::choose::measure::{bracketed, unique_offsets, unique_reach, Measure};
use crate::locate::choose::plan::{applied_or_not, not_found, placed, range, Edit, Plan};
use crate::locate::choose::similar_rung;
use crate::locate::rungs::index::FileIndex;
use crate::locate::rungs::search::Fit;
use crate::locate::rungs::substring::{
    by_substring, exact_apart, find, placed_by_lines, Flat, TextFound,
};
use crate::locate::{
    choose::evidence, hunk_keys, locate, ops_for, post_image, pre_image, Found, Placement,
};
use crate::merge::merge3;
use crate::ops::{assemble, diff_ops};
use crate::report::{HunkReport, Rung, Status};
use crate::text::Trim as _;
use crate::text::{has_words, is_blank, Doc};

/// Place every hunk of a file. `baseline` gives the text the model read, when it differs; it is
/// asked for only when a hunk needs the 3-way rung, since fetching it can cost more than placing.
pub(crate) fn place_all<'b>(
    idx: &FileIndex,
    hunks: &[Hunk],
    baseline: &dyn Fn() -> Option<&'b Doc<'b>>,
) -> Vec<Plan> {
    let doc = idx.doc;
    let found: Vec<Option<Found>> = hunks
        .iter()
        .map(|h| (!h.is_pure_insertion() && !h.lines.is_empty()).then(|| locate(idx, h)))
        .collect();
    let measured = unique_offsets(hunks, &found);
    // When no hunk of the file was found in exactly one place, a hint counts as it stands.
    let offsets = if measured.is_empty() {
        vec![0]
    } else {
        measured.clone()
    };
    let mut plans = Vec::with_capacity(hunks.len());
    let mut flat: Option<Flat> = None;
    let mut reach: Option<Option<(usize, usize)>> = None;
    for (i, hunk) in hunks.iter().enumerate() {
        let mut report = HunkReport::new(i, Status::NotFound);
        if let Some(msg) = malformed(hunk) {
            report.status = Status::Malformed;
            report.message = Some(msg);
            plans.push(Plan {
                report,
                edit: Edit::Nothing,
            });
            continue;
        }
        if let (Some(pair), Some(want)) = (&hunk.substring, hunk.occurrences) {
            let flat = flat.get_or_insert_with(|| Flat::new(doc));
            plans.push(crate::locate::rungs::count::by_count(
                doc, flat, pair, want, i,
            ));
            continue;
        }
        if let Some(plan) = hunk
            .substring
            .as_ref()
            .and_then(|pair| crate::locate::choose::quoted_twice::refusal(doc, pair, i))
        {
            plans.push(plan);
            continue;
        }
        if let Some(Found::Candidates(c)) = &found[i] {
            if let Some(at) = exact_elsewhere(&mut flat, doc, hunk, c) {
                plans.push(two_readings(doc, hunk, i, c, at));
                continue;
            }
        }
        if let (Some(pair), Some(Found::Candidates(c))) = (&hunk.substring, &found[i]) {
            // The old text nowhere byte for byte, only re-spaced or looser; its new text
            // byte for byte apart from those places: a retried edit, made already.
            let flat = flat.get_or_insert_with(|| Flat::new(doc));
            let places: Vec<(usize, usize)> = c.iter().map(Placement::range).collect();
            if let Some((start, end)) = new_text_settled(flat, pair, &places) {
                // Old text that stands but for trailing whitespace is as strong a reading as
                // the new text byte for byte elsewhere (a model's quote with a space added at a
                // line's end): which one the reply meant is not shown, so neither is taken.
                // Generator seed 31337 case 4572 took the new text, four columns into another
                // block's indentation, for the edit made, and left the old text unchanged.
                if c.iter().any(|p| p.rung == Rung::TrailingWs) {
                    let mut plan = crate::locate::choose::ambiguity::ambiguous(doc, hunk, i, c);
                    plan.report.message = Some(format!(
                        "the old text stands at line {} but for trailing whitespace, and the new \
                         text stands byte for byte at lines {}-{} as if the edit were made; \
                         quote the place you mean with more of its text",
                        c[0].range().0 + 1,
                        start + 1,
                        end
                    ));
                    plans.push(plan);
                    continue;
                }
                report.status = Status::AlreadyApplied;
                report.lines = Some(range(start, end));
                plans.push(Plan {
                    report,
                    edit: Edit::Nothing,
                });
                continue;
            }
        }
        if let (Some(pair), true, true) = (
            &hunk.substring,
            placed_by_lines(&found[i], hunk.substring.as_ref()),
            adds_new_text(hunk),
        ) {
            // Whole lines matched, but the new text may be there already with the old text
            // only inside it (an insertion that keeps its old text): applying again would
            // duplicate it. Only when the edit adds text of its own: added blank lines or
            // repeated lines could slide, and then the file may just be one short.
            let flat = flat.get_or_insert_with(|| Flat::new(doc));
            if let TextFound::AlreadyApplied { start, end } = find(doc, flat, pair, false) {
                report.status = Status::AlreadyApplied;
                report.lines = Some(range(start, end));
                plans.push(Plan {
                    report,
                    edit: Edit::Nothing,
                });
                continue;
            }
        }
        let by_lines = placed_by_lines(&found[i], hunk.substring.as_ref());
        if let (Some(pair), false) = (&hunk.substring, by_lines) {
            let flat = flat.get_or_insert_with(|| Flat::new(doc));
            if let Some(plan) = by_substring(idx, flat, hunk, pair, &found[i], i, &offsets) {
                plans.push(plan);
                continue;
            }
        }
        let plan = match &found[i] {
            None => insertion(idx, hunk, &measured, i),
            Some(Found::AlreadyApplied { start, end }) => {
                report.status = Status::AlreadyApplied;
                report.lines = Some(range(*start, *end));
                Plan {
                    report,
                    edit: Edit::Nothing,
                }
            }
            Some(Found::Candidates(c)) if c.len() == 1 => placed(i, c[0].clone()),
            Some(Found::Candidates(c)) => {
                let measure = Measure {
                    offsets: &offsets,
                    unmeasured: measured.is_empty(),
                    bracketed: bracketed(*reach.get_or_insert_with(|| unique_reach(&found)), c),
                };
                by_evidence(idx, hunk, i, c, &measure, baseline)
            }
            Some(Found::Unclear { start, end }) => applied_or_not(i, *start, *end),
            Some(Found::Nothing) => not_found(i),
        };
        plans.push(plan);
    }
    for (i, hunk) in hunks.iter().enumerate() {
        let st = plans[i].report.status;
        if !matches!(st, Status::NotFound | Status::Ambiguous) {
            continue;
        }
        if let Some(base) = baseline() {
            if let Some(plan) = three_way(doc, base, hunk, i) {
                plans[i] = plan;
                continue;
            }
        }
        if st == Status::NotFound && !hunk.is_pure_insertion() {
            plans[i] = similar_rung::similar(idx, hunk, i);
        }
    }
    plans
}

/// For a text replacement the line ladder found only re-spaced (trailing whitespace or
/// indentation), or found as whole lines when its old text is a piece of a line, an exact
/// occurrence of its old text apart from every candidate: two readings.
/// `flat` (of `doc`) is built only then: flattening a large file costs more than placing a clean
/// hunk.
fn exact_elsewhere(
    flat: &mut Option<Flat>,
    doc: &Doc,
    hunk: &Hunk,
    cands: &[Placement],
) -> Option<(usize, usize)> {
    let pair = hunk.substring.as_ref()?;
    // Old text that does not run to a line end is a piece of text, not whole lines: found as a
    // whole line, it may as well be the piece of a longer line that it is elsewhere.
    let piece = !pair.old.ends_with('\n');
    let respaced = cands.first().is_some_and(|p| {
        matches!(p.rung, Rung::TrailingWs | Rung::Indent) || (piece && p.rung == Rung::Exact)
    });
    if !respaced {
        return None;
    }
    let ranges: Vec<(usize, usize)> = cands.iter().map(Placement::range).collect();
    exact_apart(flat.get_or_insert_with(|| Flat::new(doc)), pair, &ranges)
}

/// A hunk found in several places, narrowed by evidence. A choice that only the line hint makes
/// reads the hint in the text the model read. When that is a baseline other than the file, the
/// hint is the baseline's, and the hunk takes the 3-way rung instead (placed there and merged):
/// offsets measured on other hunks say how far the file moved where those hunks stand, not
/// where this one does (a line added between two hunks moves only the later one). When the
/// 3-way rung cannot place the hunk, the hint with the measured offsets chooses, or with no
/// offset measured the hunk is refused as ambiguous.
fn by_evidence<'b>(
    idx: &FileIndex,
    hunk: &Hunk,
    i: usize,
    c: &[Placement],
    m: &Measure,
    baseline: &dyn Fn() -> Option<&'b Doc<'b>>,
) -> Plan {
    let doc = idx.doc;
    let ranges: Vec<(usize, usize)> = c.iter().map(Placement::range).collect();
    let offsets = m.offsets;
    let choose = |hint| evidence::choose(idx, &hunk.scopes, hunk.anchor, hint, offsets, &ranges);
    let Some(k) = choose(hunk.old_start) else {
        return ambiguous(doc, hunk, i, c);
    };
    // Asked only when it matters: choosing without the hint may build the scope table, and
    // telling whether the baseline differs from the file hashes the whole file. When every hunk
    // found in one place stood exactly at its hinted line, and such hunks stand above and below
    // this one, the hints hold in the file as it is (the usual clean patch of a large file) and
    // the baseline is not consulted. Below (or above) every such hunk, the file may have moved
    // where none of them measures it.
    let hints_hold = !m.unmeasured && m.bracketed && offsets.iter().all(|&o| o == 0);
    let hinted = || !hints_hold && hunk.old_start.is_some() && choose(None) != Some(k);
    if let Some(base) = Some(baseline).filter(|_| hinted()).and_then(|b| b()) {
        match three_way(doc, base, hunk, i) {
            Some(plan) => return plan,
            None if m.unmeasured => return ambiguous(doc, hunk, i, c),
            None => {}
        }
    }
    placed(i, c[k].clone())
}

/// True when the hunk adds a non-blank line that is none of its old lines (trimmed).
fn adds_new_text(hunk: &Hunk) -> bool {
    let (pre, _) = pre_image(&hunk.lines);
    hunk.lines.iter().any(|l| {
        l.kind == LineKind::Add
            && !l.text.trim_ws().is_empty()
            && !pre.iter().any(|p| p.trim_ws() == l.text.trim_ws())
    })
}

/// A reason to refuse a hunk before looking for it.
fn malformed(hunk: &Hunk) -> Option<String> {
    if hunk.lines.is_empty() {
        return Some("the hunk is empty".into());
    }
    let (pre, _) = pre_image(&hunk.lines);
    let placeholder = hunk.lines.iter().any(|l| {
        l.kind == LineKind::Add
            && crate::placeholder::is_marker(&l.text)
            && !pre.iter().any(|p| p.trim_ws() == l.text.trim_ws())
    });
    if placeholder && hunk.lines.iter().any(|l| l.kind == LineKind::Remove) {
        return Some(
            "the replacement contains a `...` placeholder instead of code; write the lines out in full"
                .into(),
        );
    }
    None
}

/// A hunk that only adds lines: placed by anchor, scope, or a hint consistent with the other
/// hunks, never by guessing.
fn insertion(idx: &FileIndex, hunk: &Hunk, offsets: &[isize], i: usize) -> Plan {
    let doc = idx.doc;
    if let Some((start, end)) = anchored_already(doc, hunk) {
        let mut report = HunkReport::new(i, Status::AlreadyApplied);
        report.lines = Some(range(start, end));
        return Plan {
            report,
            edit: Edit::Nothing,
        };
    }
    if let Anchor::AfterLine(n) = hunk.anchor {
        return after_line(doc, n, i);
    }
    let at = match hunk.anchor {
        Anchor::Start => Some(0),
        Anchor::End => Some(doc.len()),
        Anchor::None | Anchor::AfterLine(_) => None,
    }
    .or_else(|| evidence::resolve_scopes(idx, &hunk.scopes).map(|(s, _)| s + 1))
    .or_else(|| {
        // Only offsets measured on other hunks count as evidence for a bare insertion.
        let hint = hunk.old_start?;
        match offsets {
            [d] => {
                let at = hint as isize + d;
                (0..=doc.len() as isize)
                    .contains(&at)
                    .then_some(at as usize)
            }
            _ => None,
        }
    });
    match at {
        Some(at) => insert_at(at, i),
        None => {
            let mut report = HunkReport::new(i, Status::NotFound);
            report.message = Some(
                "the hunk only adds lines and has no unchanged lines, scope line or end-of-file marker to place it by; include a few unchanged lines around the insertion"
                    .into(),
            );
            Plan {
                report,
                edit: Edit::Nothing,
            }
        }
    }
}

/// An insertion after line `n` (1-based; 0 before the first), as a text editor's `insert` says
/// it: placed there, or refused when the file has fewer lines.
fn after_line(doc: &Doc, n: usize, i: usize) -> Plan {
    if n > doc.len() {
        let mut report = HunkReport::new(i, Status::NotFound);
        report.message = Some(format!(
            "the insertion goes after line {n}, but the file has {} lines; re-read the file",
            doc.len()
        ));
        return Plan {
            report,
            edit: Edit::Nothing,
        };
    }
    insert_at(n, i)
}

/// Lines inserted before line index `at`, as they are.
fn insert_at(at: usize, i: usize) -> Plan {
    let fit = Fit {
        map: Vec::new(),
        reindent: Default::default(),
        form: crate::text::Form::Raw,
    };
    let mut p = Placement::new(Rung::Exact, fit, None);
    p.at = at;
    placed(i, p)
}

/// Where a pure insertion pinned to the start or end of the file already stands: the file
/// starts (or ends) with exactly its lines. Lines that are all blank prove nothing.
fn anchored_already(doc: &Doc, hunk: &Hunk) -> Option<(usize, usize)> {
    let lines = post_image(&hunk.lines);
    if lines.iter().all(|l| is_blank(l)) || lines.len() > doc.len() {
        return None;
    }
    let start = match hunk.anchor {
        Anchor::Start => 0,
        Anchor::End => doc.len() - lines.len(),
        // Lines of braces or blanks standing after the line prove nothing: inserting another
        // `}` where one follows is a real edit.
        Anchor::AfterLine(n)
            if n + lines.len() <= doc.len() && lines.iter().any(|l| has_words(l)) =>
        {
            n
        }
        Anchor::AfterLine(_) | Anchor::None => return None,
    };
    lines
        .iter()
        .enumerate()
        .all(|(k, l)| doc.line(start + k) == *l)
        .then_some((start, start + lines.len()))
}

/// The 3-way rung: place the hunk on the baseline, apply it there, merge into the current text.
fn three_way(doc: &Doc, base: &Doc, hunk: &Hunk, i: usize) -> Option<Plan> {
    let new_base = changed_base(base, hunk, i)?;
    let mut report = HunkReport::new(i, Status::Applied);
    report.rung = Some(Rung::ThreeWay);
    match merge3(base.body, doc.body, &new_base) {
        Ok(merged) => {
            if merged == doc.body {
                report.status = Status::AlreadyApplied;
                return Some(Plan {
                    report,
                    edit: Edit::Nothing,
                });
            }
            let ops = diff_ops(doc, &merged, i);
            if let (Some(first), Some(last)) = (ops.first(), ops.last()) {
                report.lines = Some(range(first.start, last.end));
            }
            let eof = ops
                .iter()
                .any(|o| o.end == doc.len())
                .then(|| Doc::parse(&merged).final_newline);
            Some(Plan {
                report,
                edit: Edit::Ops { ops, eof },
            })
        }
        Err(conflict) => {
            report.status = Status::Conflict;
            let spans: Vec<String> = conflict
                .ranges
                .iter()
                .map(|r| format!("{}-{}", r.start, r.end))
                .collect();
            report.lines = conflict.ranges.first().copied();
            report.message = Some(format!(
                "the edit was written against an older version of the file and conflicts with changes made since, at lines {}; re-read the file and redo the edit there",
                spans.join(", ")
            ));
            Some(Plan {
                report,
                edit: Edit::Nothing,
            })
        }
    }
}

/// The baseline with the hunk applied to it, by the same rungs (substring included) as the
/// work tree, or `None` when the hunk does not place there uniquely.
fn changed_base(base: &Doc, hunk: &Hunk, i: usize) -> Option<String> {
    let bidx = FileIndex::with_keys(base, hunk_keys(std::slice::from_ref(hunk)));
    let found = (!hunk.is_pure_insertion()).then(|| locate(&bidx, hunk));
    let mut flat = None;
    if let Some(Found::Candidates(c)) = &found {
        // The reply's two readings stand in the baseline too: the baseline cannot choose.
        if exact_elsewhere(&mut flat, base, hunk, c).is_some() {
            return None;
        }
    }
    if let (Some(pair), false) = (
        &hunk.substring,
        placed_by_lines(&found, hunk.substring.as_ref()),
    ) {
        let flat = flat.get_or_insert_with(|| Flat::new(base));
        let plan = by_substring(&bidx, flat, hunk, pair, &found, i, &[0]);
        if let Some(Plan {
            edit: Edit::Ops { ops, .. },
            ..
        }) = plan
        {
            return Some(assemble(base, &ops, None, false));
        }
        if plan.is_some() {
            return None;
        }
    }
    let plan = match found {
        None => insertion(&bidx, hunk, &[0], i),
        Some(Found::Candidates(c)) if c.len() == 1 => placed(i, c[0].clone()),
        Some(Found::Candidates(c)) => {
            let ranges: Vec<(usize, usize)> = c.iter().map(Placement::range).collect();
            let k = evidence::choose(
                &bidx,
                &hunk.scopes,
                hunk.anchor,
                hunk.old_start,
                &[0],
                &ranges,
            )?;
            placed(i, c[k].clone())
        }
        Some(Found::AlreadyApplied { .. } | Found::Unclear { .. } | Found::Nothing) => return None,
    };
    let Edit::Place(p) = &plan.edit else {
        return None;
    };
    let lines = p.lines.as_deref().unwrap_or(&hunk.lines);
    let shown = crate::locate::write::style::reply_style(base, std::iter::once((lines, p)));
    let levels = crate::locate::write::levels::shown(base, std::iter::once((lines, p)));
    let ops = ops_for(base, lines, p, i, shown, levels).ok()?;
    let eof = eof_override(base, hunk, p);
    Some(assemble(base, &ops, eof, false))
}

/// The final-newline state a hunk asks for when it reaches the end of the file and its two sides
/// disagree about the last newline.
pub(crate) fn eof_override(doc: &Doc, hunk: &Hunk, p: &Placement) -> Option<bool> {
    let (_, end) = p.range();
    (end == doc.len() && hunk.old_no_newline != hunk.new_no_newline).then_some(!hunk.new_no_newline)
}
