//! What one repair is and what became of it: where it came from, the verdict on it, and the
//! report the loop keeps of it. Shared by the session and the steps of an attempt.

use serde::Serialize;

use crate::fix::guard;
use crate::fix::rules::FailurePattern;
use crate::report::Report;

/// Where a repair came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// A rule replayed without a model.
    Rule { id: String },
    /// A model's answer.
    Model { provider: String },
    /// The fix given with `--proposed`.
    Proposed,
}

impl Source {
    pub(super) fn describe(&self) -> String {
        match self {
            Source::Rule { id } => format!("rule {id}"),
            Source::Model { provider } => format!("model {provider}"),
            Source::Proposed => "the proposed fix".to_owned(),
        }
    }
}

/// What became of a repair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The check passes.
    Green,
    /// Fewer failures: kept.
    Better,
    /// Not fewer failures: its checkpoint was restored.
    NotBetter,
    /// It did not apply (refused by the placement); nothing written.
    Refused,
    /// It weakened the check; nothing written.
    GuardRejected,
    /// Its stated confidence was below the gate; nothing written.
    LowConfidence,
    /// After it, the check failed for a reason outside the code; restored.
    Environment,
    /// Stopped by the user while it was checked; restored.
    Interrupted,
}

/// A repair as the outcome reports it.
#[derive(Clone, Debug, Serialize)]
pub struct AttemptReport {
    /// 1-based.
    pub seq: u32,
    pub source: Source,
    pub verdict: Verdict,
    /// The confidence the model stated, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    pub failures_before: usize,
    /// After the repair was applied and checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures_after: Option<usize>,
    /// The files it wrote (and kept or restored).
    pub written: Vec<String>,
    /// The apply report: where each hunk landed, or why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
    pub guard: Vec<guard::Finding>,
}

impl AttemptReport {
    pub(super) fn low_confidence(seq: u32, candidate: &Candidate) -> AttemptReport {
        AttemptReport {
            seq,
            source: candidate.source.clone(),
            verdict: Verdict::LowConfidence,
            confidence: candidate.confidence,
            failures_before: 0,
            failures_after: None,
            written: Vec::new(),
            report: None,
            guard: Vec::new(),
        }
    }
}

/// A repair to try.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    pub(super) source: Source,
    /// The reply or diff to apply.
    pub(super) text: String,
    pub(super) confidence: Option<f64>,
    /// Why (the model's words, or the rule matched), for the record's decision.
    pub(super) rationale: Option<String>,
}

/// A repair that was kept.
#[derive(Clone, Debug)]
pub(super) struct Kept {
    pub(super) source: Source,
    pub(super) text: String,
    pub(super) written: Vec<String>,
    pub(super) diff: String,
    /// The failures it was made for, for learning a rule.
    pub(super) patterns: Vec<FailurePattern>,
}
