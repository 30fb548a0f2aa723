//! Recording an ask: one call with everything, so the pipeline does not depend on how the
//! record is kept. [`StoreRecorder`] writes it to salve's record through the one
//! [`crate::record::Recorder`], as apply does; [`NoRecord`]
//! drops it.
//!
//! What a run holds: the prompt; per round the artifacts `raw_reply`, `extracted_diff`,
//! `sanitized_diff`, `final_diff` (when something was written) and `apply_report` (the second
//! round's names end in `.2`, and so on); one patch set per applied or refused round; one
//! attempt per provider call with its class, tokens, cost and latency; and a decision naming the
//! provider whose answer was used and the ones passed over, with their reasons.

use std::path::{Path, PathBuf};

use salve_llm::secret::redact;
use salve_store::{artifact, Attempt, Batch, Decision, Finish, NewRun, RunKind, StoreError};
use serde_json::json;

use super::{Outcome, Status};
use crate::record::{Applied, Recorder as RunRecorder};

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
        write(dir, record).map_err(|e| e.to_string())
    }
}

fn suffix(round: usize) -> String {
    if round == 0 {
        String::new()
    } else {
        format!(".{}", round + 1)
    }
}

fn write(dir: &Path, record: &AskRecord<'_>) -> Result<Option<String>, StoreError> {
    let outcome = record.outcome;
    let mut new = NewRun::new(RunKind::Ask, record.command.to_vec());
    new.budgets = Some(json!({ "follow_ups": record.follow_ups }));
    let Some(recorder) = RunRecorder::start(dir, &new)? else {
        return Ok(None);
    };
    let mut recorder = recorder.redacting();
    recorder.artifact("prompt", redact(&outcome.prompt).as_bytes())?;
    // (round, first patch-set seq) of every round that produced patch sets.
    let mut patch_sets = Vec::new();
    for (i, round) in outcome.rounds.iter().enumerate() {
        let suffix = suffix(i);
        let name = |base: &str| format!("{base}{suffix}");
        recorder.artifact(&name(artifact::RAW_REPLY), round.reply.as_bytes())?;
        for (base, diff) in [
            (artifact::EXTRACTED_DIFF, &round.extracted_diff),
            (artifact::SANITIZED_DIFF, &round.sanitized_diff),
        ] {
            if !diff.is_empty() {
                recorder.artifact(&name(base), diff.as_bytes())?;
            }
        }
        if let Some(report) = &round.report {
            let rationale = format!(
                "{} from {}",
                if round.follow_up {
                    "follow-up answer"
                } else {
                    "answer"
                },
                round.provider
            );
            let seqs = recorder.applied(&Applied {
                report,
                diff: &round.final_diff,
                baseline: outcome.baseline.as_deref(),
                suffix: &suffix,
                rationale: Some(&rationale),
            })?;
            if let Some(first) = seqs.first() {
                patch_sets.push((i, *first));
            }
        }
    }
    recorder.batch(&Batch {
        attempts: attempts(outcome, &patch_sets),
        decisions: decision(outcome).into_iter().collect(),
        ..Batch::default()
    })?;
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
    recorder
        .finish(&Finish {
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
        })
        .map(Some)
}

/// Provider calls, linked to the patch set their answer produced.
fn attempts(outcome: &Outcome, patch_sets: &[(usize, u32)]) -> Vec<Attempt> {
    let mut answered_round = 0usize;
    let mut out = Vec::new();
    for attempt in &outcome.attempts {
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
        out.push(Attempt {
            patch_set,
            ..crate::record::provider_call(attempt)
        });
    }
    out
}

fn refusal(outcome: &Outcome) -> Option<String> {
    if outcome.status != Status::Refused {
        return None;
    }
    let report = outcome.report()?;
    let file = report.files.iter().find(|f| !f.status.is_success())?;
    Some(format!("{}: {}", file.path, file.status.as_str()))
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
