//! Recording an ask: one call with everything, so the pipeline does not depend on how the
//! record is kept. [`StoreRecorder`] writes it to salve's record ([`salve_store`]); [`NoRecord`]
//! drops it.
//!
//! What a run holds: the prompt; per round the artifacts `raw_reply`, `extracted_diff`,
//! `sanitized_diff`, `final_diff` (when something was written) and `apply_report` (the second
//! round's names end in `.2`, and so on); one patch set per applied or refused round; one
//! attempt per provider call with its class, tokens, cost and latency; and a decision naming the
//! provider whose answer was used and the ones passed over, with their reasons.

use std::path::{Path, PathBuf};

use salve_llm::secret::redact;
use salve_patch::{ChangeKind, Outcome as ReportOutcome, Report};
use salve_store::{
    artifact, Attempt, Decision, FileChange, Finish, NewRun, PatchSet, PatchStatus, RunKind, Store,
    StoreError, TouchedFile,
};
use serde_json::json;

use super::{Outcome, Round, Status};

/// Everything about one ask, for the record.
#[derive(Clone, Copy, Debug)]
pub struct AskRecord<'a> {
    pub command: &'a [String],
    pub dir: &'a Path,
    pub outcome: &'a Outcome,
    /// The follow-up budget given.
    pub follow_ups: u32,
}

/// Keeps ask runs.
pub trait Recorder {
    /// Record the run; the run id, or `None` where no record is kept.
    fn record(&mut self, record: &AskRecord<'_>) -> Result<Option<String>, String>;
}

/// Keeps nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoRecord;

impl Recorder for NoRecord {
    fn record(&mut self, _: &AskRecord<'_>) -> Result<Option<String>, String> {
        Ok(None)
    }
}

/// Writes to salve's record for the work tree (`.git/salve/` in a repository; `.salve/` in a
/// plain directory that has one, else nothing).
#[derive(Clone, Debug, Default)]
pub struct StoreRecorder {
    /// Where the record is found from; `None` uses the ask's directory.
    pub dir: Option<PathBuf>,
}

impl Recorder for StoreRecorder {
    fn record(&mut self, record: &AskRecord<'_>) -> Result<Option<String>, String> {
        let dir = self.dir.as_deref().unwrap_or(record.dir);
        let Some(mut store) = Store::open_if_kept(dir).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        write(&mut store, record)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

fn suffix(round: usize) -> String {
    if round == 0 {
        String::new()
    } else {
        format!(".{}", round + 1)
    }
}

fn write(store: &mut Store, record: &AskRecord<'_>) -> Result<String, StoreError> {
    let outcome = record.outcome;
    let mut new = NewRun::new(RunKind::Ask, record.command.to_vec());
    new.budgets = Some(json!({ "follow_ups": record.follow_ups }));
    let run = store.begin_run(&new)?;
    store.put_artifact(&run, "prompt", redact(&outcome.prompt).as_bytes())?;
    // (round, patch-set seq) of every round that produced a patch set.
    let mut patch_sets = Vec::new();
    for (i, round) in outcome.rounds.iter().enumerate() {
        let name = |base: &str| format!("{base}{}", suffix(i));
        store.put_artifact(&run, &name(artifact::RAW_REPLY), round.reply.as_bytes())?;
        for (base, diff) in [
            (artifact::EXTRACTED_DIFF, &round.extracted_diff),
            (artifact::SANITIZED_DIFF, &round.sanitized_diff),
        ] {
            if !diff.is_empty() {
                store.put_artifact(&run, &name(base), diff.as_bytes())?;
            }
        }
        let mut diff_sha = None;
        if !round.final_diff.is_empty() {
            let a = store.put_artifact(
                &run,
                &name(artifact::FINAL_DIFF),
                round.final_diff.as_bytes(),
            )?;
            diff_sha = Some(a.sha256);
        }
        if let Some(report) = &round.report {
            let json = redact(&report.to_json());
            store.put_artifact(&run, &name(artifact::APPLY_REPORT), json.as_bytes())?;
            let seq = store.add_patch_set(&run, &patch_set(round, report, outcome, diff_sha))?;
            patch_sets.push((i, seq));
        }
    }
    // Provider calls, linked to the patch set their answer produced.
    let mut answered_round = 0usize;
    for attempt in &outcome.attempts {
        let meta = attempt.meta.as_ref();
        let stopped = matches!(
            attempt.class,
            salve_llm::ReplyClass::Edit | salve_llm::ReplyClass::NoChange
        );
        let patch_set = if stopped {
            let found = patch_sets
                .iter()
                .find(|(round, _)| *round == answered_round)
                .map(|(_, seq)| *seq);
            answered_round += 1;
            found
        } else {
            None
        };
        store.add_attempt(
            &run,
            &Attempt {
                patch_set,
                provider: Some(attempt.provider.clone()),
                model: meta.and_then(|m| m.model.clone()),
                tokens_in: meta.and_then(|m| m.tokens_in),
                tokens_out: meta.and_then(|m| m.tokens_out),
                cost_usd: meta.and_then(|m| m.cost_usd),
                latency_ms: meta.map(|m| m.latency_ms),
                failure_class: Some(match (attempt.failure, &attempt.reason) {
                    (Some(kind), _) => format!("{}: {}", attempt.class.as_str(), kind.as_str()),
                    _ => attempt.class.as_str().to_owned(),
                }),
                ..Attempt::default()
            },
        )?;
    }
    if let Some(decision) = decision(outcome) {
        store.add_decision(&run, &decision)?;
    }
    // Sums only of what providers reported: no numbers where none was.
    let sum_u64 = |f: fn(&salve_llm::Meta) -> Option<u64>| -> Option<u64> {
        let values: Vec<u64> = outcome
            .attempts
            .iter()
            .filter_map(|a| f(a.meta.as_ref()?))
            .collect();
        (!values.is_empty()).then(|| values.iter().sum())
    };
    let costs: Vec<f64> = outcome
        .attempts
        .iter()
        .filter_map(|a| a.meta.as_ref()?.cost_usd)
        .collect();
    let cost = (!costs.is_empty()).then(|| costs.iter().fold(0.0, |a, b| a + b));
    store.finish_run(
        &run,
        &Finish {
            status: outcome.status.as_str().to_owned(),
            message: outcome
                .message
                .as_deref()
                .map(|m| redact(m.lines().next().unwrap_or_default()))
                .or_else(|| refusal(outcome)),
            baseline: outcome.baseline.clone(),
            checkpoint: outcome.checkpoint.clone(),
            budgets: Some(json!({
                "follow_ups": record.follow_ups,
                "follow_ups_used": outcome.rounds.iter().filter(|r| r.follow_up).count(),
                "provider_calls": outcome.attempts.len(),
                "tokens_in": sum_u64(|m| m.tokens_in),
                "tokens_out": sum_u64(|m| m.tokens_out),
                "cost_usd": cost,
            })),
        },
    )?;
    Ok(run)
}

fn refusal(outcome: &Outcome) -> Option<String> {
    if outcome.status != Status::Refused {
        return None;
    }
    let report = outcome.report()?;
    let file = report.files.iter().find(|f| !f.status.is_success())?;
    Some(format!("{}: {}", file.path, file.status.as_str()))
}

fn patch_set(
    round: &Round,
    report: &Report,
    outcome: &Outcome,
    diff_sha: Option<String>,
) -> PatchSet {
    let status = match report.outcome {
        ReportOutcome::Refused | ReportOutcome::Partial => PatchStatus::Rejected,
        _ if report.check_only => PatchStatus::Proposed,
        _ => PatchStatus::Applied,
    };
    let files = report
        .files
        .iter()
        .map(|f| TouchedFile {
            path: f.new_path.clone().unwrap_or_else(|| f.path.clone()),
            old_path: f.new_path.as_ref().map(|_| f.path.clone()),
            change: match f.change {
                ChangeKind::Create => FileChange::Add,
                ChangeKind::Delete => FileChange::Delete,
                ChangeKind::Rename => FileChange::Rename,
                ChangeKind::Modify | ChangeKind::Replace => FileChange::Modify,
            },
            added: f.added as u64,
            removed: f.removed as u64,
        })
        .collect();
    let formats: Vec<&str> = round
        .extraction
        .formats()
        .into_iter()
        .map(|f| f.as_str())
        .collect();
    let reason = match status {
        PatchStatus::Rejected => report
            .files
            .iter()
            .find(|f| !f.status.is_success())
            .map(|f| format!("{}: {}", f.path, f.status.as_str()))
            .or_else(|| report.issues.first().map(|i| redact(&i.message))),
        PatchStatus::Proposed => Some("--dry-run: nothing written".to_owned()),
        PatchStatus::Applied => None,
    };
    PatchSet {
        seq: 0,
        baseline: outcome.baseline.clone(),
        diff_sha256: diff_sha,
        files,
        rationale: Some(format!(
            "{} from {}",
            if round.follow_up {
                "follow-up answer"
            } else {
                "answer"
            },
            round.provider
        )),
        format: match formats.as_slice() {
            [] => None,
            [one] => Some((*one).to_owned()),
            _ => Some("mixed".to_owned()),
        },
        status,
        reason,
    }
}

/// Which provider's answer was used, over which others, and why.
fn decision(outcome: &Outcome) -> Option<Decision> {
    let chosen = match &outcome.provider {
        Some(p) => format!("answer of provider {p} (chain {})", outcome.chain),
        None => format!("no provider answered (chain {})", outcome.chain),
    };
    let mut alternatives: Vec<String> = Vec::new();
    for a in &outcome.attempts {
        if let Some(reason) = &a.reason {
            alternatives.push(format!("{} (call {}): {reason}", a.provider, a.call));
        }
    }
    if alternatives.is_empty() && outcome.provider.is_some() && outcome.rounds.len() < 2 {
        return None;
    }
    Some(Decision {
        seq: 0,
        chosen,
        alternatives,
        confidence: None,
        evidence: None,
    })
}
