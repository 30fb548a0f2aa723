//! Recording a `salve apply`: the run, the reply, the report, the final diff, one patch set per
//! fate (written, or refused) and a decision for every hunk that needed judgement.
//!
//! The caller starts the run with [`begin`] before applying (so a killed apply shows as
//! `interrupted`), then ends it with [`finish`] or, when the apply stopped on an error,
//! [`finish_error`].

use salve_patch::{ChangeKind, FileReport, HunkReport, Outcome, Report, Status};

use crate::error::Result;
use crate::model::{
    artifact, status, Artifact, Decision, FileChange, Finish, NewRun, PatchSet, PatchStatus,
    RunKind, TouchedFile,
};
use crate::record::{insert_artifact, insert_decision, insert_patch_set, update_totals};
use crate::Store;

/// Decisions recorded per apply at most; the report artifact has every hunk.
const MAX_DECISIONS: usize = 200;

/// What an apply produced, as the record needs it.
#[derive(Clone, Copy, Debug)]
pub struct Applied<'a> {
    pub report: &'a Report,
    /// The unified diff of what was written (or would be, under `--check`); empty for none.
    pub diff: &'a str,
    pub baseline: Option<&'a str>,
    pub checkpoint: Option<&'a str>,
}

/// An apply run in progress on its own open record: the one-call form of [`begin`] and
/// [`finish`] for front ends.
#[derive(Debug)]
pub struct Recorder {
    store: Store,
    run: String,
}

impl Recorder {
    /// Open the record for work in `dir` and start an apply run of `reply`; `None` where no
    /// record is kept (a plain directory without `.salve/`).
    pub fn start(
        dir: &std::path::Path,
        command: Vec<String>,
        reply: &str,
    ) -> Result<Option<Recorder>> {
        let Some(mut store) = Store::open_if_kept(dir)? else {
            return Ok(None);
        };
        let run = begin(&mut store, command, reply)?;
        Ok(Some(Recorder { store, run }))
    }

    pub fn run_id(&self) -> &str {
        &self.run
    }

    /// End the run with the apply's report; returns the run id.
    pub fn finish(mut self, applied: &Applied<'_>) -> Result<String> {
        finish(&mut self.store, &self.run, applied)?;
        Ok(self.run)
    }

    /// End the run with the error that stopped the apply; returns the run id.
    pub fn fail(mut self, message: &str) -> Result<String> {
        finish_error(&mut self.store, &self.run, message)?;
        Ok(self.run)
    }
}

/// Start an apply run and store the reply. Returns the run id.
pub fn begin(store: &mut Store, command: Vec<String>, reply: &str) -> Result<String> {
    let run = store.begin_run(&NewRun::new(RunKind::Apply, command))?;
    store.put_artifact(&run, artifact::RAW_REPLY, reply.as_bytes())?;
    Ok(run)
}

/// The run status for an apply report.
pub fn run_status(report: &Report) -> &'static str {
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

/// End an apply run with its report.
pub fn finish(store: &mut Store, run: &str, applied: &Applied<'_>) -> Result<()> {
    let report = applied.report;
    let report_json = serde_json::to_vec_pretty(report)
        .map_err(|e| crate::StoreError::Invalid(format!("encoding the report: {e}")))?;
    let mut artifacts = vec![stored(store, artifact::APPLY_REPORT, &report_json)?];
    let diff = if applied.diff.is_empty() {
        None
    } else {
        let a = stored(store, artifact::FINAL_DIFF, applied.diff.as_bytes())?;
        let sha = a.sha256.clone();
        artifacts.push(a);
        Some(sha)
    };
    let patch_sets = patch_sets(report, applied.baseline, diff);
    let decisions = decisions(report);
    let status = run_status(report);
    let message = refusal_reason(report);
    let finish = Finish {
        status: status.to_owned(),
        message,
        baseline: applied.baseline.map(str::to_owned),
        checkpoint: applied.checkpoint.map(str::to_owned),
        budgets: None,
    };
    store.in_transaction(|tx| {
        for a in &artifacts {
            insert_artifact(tx, run, a)?;
        }
        for (i, p) in patch_sets.iter().enumerate() {
            insert_patch_set(tx, run, i as u32 + 1, p)?;
        }
        for (i, d) in decisions.iter().enumerate() {
            insert_decision(tx, run, i as u32 + 1, d)?;
        }
        update_totals(tx, run)
    })?;
    store.finish_run(run, &finish)
}

/// End an apply run that stopped on an error (an unknown `--base`, an unreadable file).
pub fn finish_error(store: &mut Store, run: &str, message: &str) -> Result<()> {
    store.finish_run(
        run,
        &Finish {
            status: status::ERROR.to_owned(),
            message: Some(message.to_owned()),
            ..Finish::default()
        },
    )
}

fn stored(store: &Store, name: &str, bytes: &[u8]) -> Result<Artifact> {
    Ok(Artifact {
        name: name.to_owned(),
        sha256: store.objects().put(bytes)?,
        size: bytes.len() as u64,
    })
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

fn patch_sets(report: &Report, baseline: Option<&str>, diff: Option<String>) -> Vec<PatchSet> {
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
                (true, _) => Some("--check: nothing written".to_owned()),
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
fn refusal_reason(report: &Report) -> Option<String> {
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
fn decisions(report: &Report) -> Vec<Decision> {
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
