//! An apply report as the record keeps it: the run's status, one patch set per fate (written
//! or proposed, and refused) and a decision for every hunk that needed judgement. apply, ask and
//! fix all map their reports through here, so a report means the same in every kind of run.

use salve_patch::{ChangeKind, FileReport, HunkReport, Outcome, Report, Status};
use salve_store::{Decision, FileChange, PatchSet, PatchStatus, TouchedFile};

/// Decisions recorded per report at most; the report artifact has every hunk.
const MAX_DECISIONS: usize = 200;

/// The run status for an apply report.
pub(crate) fn run_status(report: &Report) -> &'static str {
    match report.outcome {
        Outcome::Refused => "refused",
        _ if report.check_only && report.exit_code() == 0 => "checked",
        // A check with refusals wrote nothing and would have refused something.
        _ if report.check_only => "refused",
        Outcome::Applied => "applied",
        Outcome::AlreadyApplied => "already_applied",
        Outcome::Partial => "partial",
    }
}

fn touched(file: &FileReport) -> TouchedFile {
    let (change, path, old_path) = match (file.change, &file.new_path) {
        (ChangeKind::Rename, Some(to)) => (FileChange::Rename, to.clone(), Some(file.path.clone())),
        (ChangeKind::Create, _) => (FileChange::Add, file.path.clone(), None),
        (ChangeKind::Delete, _) => (FileChange::Delete, file.path.clone(), None),
        (ChangeKind::Rename, None) => (FileChange::Rename, file.path.clone(), None),
        (ChangeKind::Modify | ChangeKind::Replace, _) => {
            (FileChange::Modify, file.path.clone(), None)
        }
    };
    TouchedFile {
        path,
        old_path,
        change,
        added: file.added as u64,
        removed: file.removed as u64,
    }
}

/// The one format of the files, or `mixed`.
fn format_of<'a>(files: impl Iterator<Item = &'a FileReport>) -> Option<String> {
    let mut formats: Vec<&str> = files.map(|f| f.format.as_str()).collect();
    formats.dedup();
    formats.sort_unstable();
    formats.dedup();
    match formats.as_slice() {
        [] => None,
        [one] => Some((*one).to_owned()),
        _ => Some("mixed".to_owned()),
    }
}

/// The patch sets of one report: what was kept (written, or proposed under a check) and what
/// was refused.
pub(crate) fn patch_sets(
    report: &Report,
    baseline: Option<&str>,
    diff: Option<String>,
) -> Vec<PatchSet> {
    let (ok, refused): (Vec<&FileReport>, Vec<&FileReport>) =
        report.files.iter().partition(|f| f.status.is_success());
    let baseline = baseline.map(str::to_owned);
    let mut out = Vec::new();
    let kept_status = match report.outcome {
        Outcome::Refused => None,
        _ if report.check_only => Some(PatchStatus::Proposed),
        _ => Some(PatchStatus::Applied),
    };
    if let (Some(status), false) = (kept_status, ok.is_empty()) {
        out.push(PatchSet {
            seq: 0,
            baseline: baseline.clone(),
            diff_sha256: diff,
            files: ok.iter().map(|f| touched(f)).collect(),
            rationale: None,
            format: format_of(ok.iter().copied()),
            status,
            reason: match (report.check_only, report.outcome) {
                (true, _) => Some("checked only: nothing written".to_owned()),
                (false, Outcome::AlreadyApplied) => Some("already applied".to_owned()),
                _ => None,
            },
        });
    }
    // Refused files, and under all-or-nothing the files that placed but were not written.
    let rejected: Vec<&FileReport> = if kept_status.is_some() {
        refused
    } else {
        report.files.iter().collect()
    };
    if !rejected.is_empty() || (kept_status.is_none() && !report.issues.is_empty()) {
        out.push(PatchSet {
            seq: 0,
            baseline,
            diff_sha256: None,
            files: rejected.iter().map(|f| touched(f)).collect(),
            rationale: None,
            format: format_of(rejected.iter().copied()),
            status: PatchStatus::Rejected,
            reason: refusal_reason(report),
        });
    }
    out
}

/// Why the reply (or part of it) was refused, in one line; `None` when nothing was.
pub(crate) fn refusal_reason(report: &Report) -> Option<String> {
    let failed = report
        .files
        .iter()
        .find(|f| !f.status.is_success() && f.status != Status::Skipped);
    if let Some(f) = failed {
        let why = f
            .message
            .clone()
            .or_else(|| f.hunks.iter().find_map(|h| h.message.clone()))
            .unwrap_or_default();
        let first_line = why.lines().next().unwrap_or_default();
        return Some(format!(
            "{}: {}{}",
            f.path,
            f.status.as_str(),
            sep(first_line)
        ));
    }
    if report.outcome == Outcome::Refused {
        return Some(
            report
                .issues
                .first()
                .map(|i| i.message.lines().next().unwrap_or_default().to_owned())
                .unwrap_or_else(|| "refused".to_owned()),
        );
    }
    None
}

fn sep(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" ({text})")
    }
}

/// One decision per hunk placed by a loose rung or refused: where it went and what else was
/// weighed. Hunks placed exactly involved no judgement.
pub(crate) fn decisions(report: &Report) -> Vec<Decision> {
    let mut out = Vec::new();
    for file in &report.files {
        for hunk in &file.hunks {
            if out.len() >= MAX_DECISIONS {
                return out;
            }
            if let Some(d) = decision(file, hunk) {
                out.push(d);
            }
        }
    }
    out
}

fn decision(file: &FileReport, hunk: &HunkReport) -> Option<Decision> {
    let placed = hunk.status.is_success();
    if placed && !hunk.rung.is_some_and(|r| r.is_fuzzy()) {
        return None;
    }
    let at = hunk
        .lines
        .map(|l| format!(" at lines {}-{}", l.start, l.end))
        .unwrap_or_default();
    let chosen = if placed {
        let rung = hunk.rung.map(|r| r.as_str()).unwrap_or("unknown");
        format!(
            "{} hunk {}: {}{at} by {rung}",
            file.path,
            hunk.index + 1,
            hunk.status.as_str()
        )
    } else {
        format!(
            "{} hunk {}: refused ({})",
            file.path,
            hunk.index + 1,
            hunk.status.as_str()
        )
    };
    let alternatives = hunk
        .candidates
        .iter()
        .map(|c| {
            format!(
                "lines {}-{} (similarity {:.2})",
                c.lines.start, c.lines.end, c.score
            )
        })
        .collect();
    let mut evidence = Vec::new();
    if let Some(m) = hunk.margin {
        evidence.push(format!("margin {m:.2} over the next candidate"));
    }
    if let Some(msg) = &hunk.message {
        evidence.push(msg.clone());
    }
    Some(Decision {
        seq: 0,
        chosen,
        alternatives,
        confidence: hunk.similarity,
        evidence: if evidence.is_empty() {
            None
        } else {
            Some(evidence.join("\n"))
        },
    })
}
