//! The record's data model (DESIGN.md §7): a [`Run`] has [`PatchSet`]s in order (each with its
//! [`TouchedFile`]s), [`Attempt`]s, [`Decision`]s and named [`Artifact`]s. The same structures
//! are what `salve show --json` prints and what `salve export` writes, so their serde shape is a
//! stable interface: fields are only ever added, with defaults.

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// What kind of job a run was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    Apply,
    Ask,
    Fix,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Apply => "apply",
            RunKind::Ask => "ask",
            RunKind::Fix => "fix",
        }
    }

    pub fn parse(text: &str) -> Option<RunKind> {
        match text {
            "apply" => Some(RunKind::Apply),
            "ask" => Some(RunKind::Ask),
            "fix" => Some(RunKind::Fix),
            _ => None,
        }
    }
}

/// Run statuses the store itself gives meaning to. Finished runs carry the job's own outcome
/// (`applied`, `refused`, `repaired`, `exhausted`, ...), which the store keeps as given.
pub mod status {
    /// Started and not finished, and its process is still alive.
    pub const RUNNING: &str = "running";
    /// Started and never finished: its process is gone (killed, crashed, power cut).
    pub const INTERRUPTED: &str = "interrupted";
    /// The job stopped on an error before it could finish; the run's message says which.
    pub const ERROR: &str = "error";
    /// A filter only: runs whose work a restore took back (their own status is kept).
    pub const REWOUND: &str = "rewound";
}

/// What a caller says when starting a run.
#[derive(Clone, Debug, PartialEq)]
pub struct NewRun {
    pub kind: RunKind,
    /// The command line as typed, one element per argument.
    pub command: Vec<String>,
    pub baseline: Option<String>,
    pub checkpoint: Option<String>,
    /// Budgets given to the job (steps, tokens, cost, time), free-form.
    pub budgets: Option<serde_json::Value>,
}

impl NewRun {
    pub fn new(kind: RunKind, command: Vec<String>) -> NewRun {
        NewRun {
            kind,
            command,
            baseline: None,
            checkpoint: None,
            budgets: None,
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Finish {
    /// The job's outcome (`applied`, `refused`, `repaired`, ... or [`status::ERROR`]).
    pub status: String,
    /// A one-line explanation, for errors and refusals.
    pub message: Option<String>,
    /// Set when only known at the end (the baseline resolved, the checkpoint taken).
    pub baseline: Option<String>,
    pub checkpoint: Option<String>,
    /// Budgets used, replacing what was given at the start when present.
    pub budgets: Option<serde_json::Value>,
}

/// Rows added to a run at once by [`Store::add_batch`](crate::Store::add_batch).
#[derive(Clone, Debug, Default)]
pub struct Batch<'a> {
    /// Artifacts by name, with their bytes.
    pub artifacts: Vec<(&'a str, &'a [u8])>,
    pub patch_sets: Vec<PatchSet>,
    pub attempts: Vec<Attempt>,
    pub decisions: Vec<Decision>,
}

/// One run, as listed and shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// 20 hex digits; any unique prefix names the run.
    pub id: String,
    pub kind: RunKind,
    pub command: Vec<String>,
    #[serde(default)]
    pub baseline: Option<String>,
    #[serde(default)]
    pub checkpoint: Option<String>,
    pub started_at: Timestamp,
    #[serde(default)]
    pub ended_at: Option<Timestamp>,
    /// The outcome; `running` or `interrupted` for runs that have not finished.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budgets: Option<serde_json::Value>,
    /// Distinct files touched by the run's patch sets that were not rejected.
    #[serde(default)]
    pub files: u64,
    #[serde(default)]
    pub added: u64,
    #[serde(default)]
    pub removed: u64,
    /// Set when a restore to this run or an earlier one took its work back: the checkpoint
    /// commit that restore took first (restoring it brings the run's work back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewound_by: Option<String>,
}

/// What a run's model calls used, summed over its attempts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Usage {
    /// Attempts recorded (checks and model calls).
    pub attempts: u64,
    /// Of those, the ones that called a model (named a provider).
    pub calls: u64,
    /// Of those, the ones that ran a check command.
    pub checks: u64,
    /// The provider and model of the last attempt that named them.
    pub provider: Option<String>,
    pub model: Option<String>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: Option<f64>,
}

/// A listed run with what a one-line listing needs besides the run itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    #[serde(flatten)]
    pub run: Run,
    /// The shortest unique prefix of the id (at least 7 digits).
    pub short_id: String,
    /// The touched paths, in patch-set order, without repeats.
    pub paths: Vec<String>,
    /// What its attempts used, when the listing asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// The fate of a patch set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchStatus {
    Proposed,
    Applied,
    Rejected,
}

impl PatchStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PatchStatus::Proposed => "proposed",
            PatchStatus::Applied => "applied",
            PatchStatus::Rejected => "rejected",
        }
    }

    pub fn parse(text: &str) -> Option<PatchStatus> {
        match text {
            "proposed" => Some(PatchStatus::Proposed),
            "applied" => Some(PatchStatus::Applied),
            "rejected" => Some(PatchStatus::Rejected),
            _ => None,
        }
    }
}

/// How a file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileChange {
    Add,
    Modify,
    Delete,
    Rename,
}

impl FileChange {
    pub fn as_str(self) -> &'static str {
        match self {
            FileChange::Add => "add",
            FileChange::Modify => "modify",
            FileChange::Delete => "delete",
            FileChange::Rename => "rename",
        }
    }

    pub fn parse(text: &str) -> Option<FileChange> {
        match text {
            "add" => Some(FileChange::Add),
            "modify" => Some(FileChange::Modify),
            "delete" => Some(FileChange::Delete),
            "rename" => Some(FileChange::Rename),
            _ => None,
        }
    }
}

/// A file a patch set touches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TouchedFile {
    /// The path after the change (the destination of a rename).
    pub path: String,
    /// The source of a rename.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    pub change: FileChange,
    pub added: u64,
    pub removed: u64,
}

/// One proposed change of the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatchSet {
    /// 1-based position in the run; [`Store::add_patch_set`](crate::Store::add_patch_set)
    /// assigns it.
    #[serde(default)]
    pub seq: u32,
    #[serde(default)]
    pub baseline: Option<String>,
    /// SHA-256 of the diff artifact, when there is a diff.
    #[serde(default)]
    pub diff_sha256: Option<String>,
    #[serde(default)]
    pub files: Vec<TouchedFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// The edit format the model used (`unified`, `search-replace`, ... or `mixed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    pub status: PatchStatus,
    /// Why it was rejected (or anything notable about how it was applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One check or model round trip of a run; every field but `seq` is optional because an attempt
/// may have only a model call, only a check, or both.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// 1-based; assigned by [`Store::add_attempt`](crate::Store::add_attempt).
    #[serde(default)]
    pub seq: u32,
    /// The patch set this attempt checked or produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_set: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// The name of the artifact holding the check's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_artifact: Option<String>,
}

/// A choice the job made, with what it weighed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// 1-based; assigned by [`Store::add_decision`](crate::Store::add_decision).
    #[serde(default)]
    pub seq: u32,
    pub chosen: String,
    #[serde(default)]
    pub alternatives: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// Well-known artifact names. Others are allowed (`check_log.2` for a second check).
pub mod artifact {
    pub const RAW_REPLY: &str = "raw_reply";
    pub const EXTRACTED_DIFF: &str = "extracted_diff";
    pub const SANITIZED_DIFF: &str = "sanitized_diff";
    pub const FINAL_DIFF: &str = "final_diff";
    pub const APPLY_REPORT: &str = "apply_report";
    pub const CHECK_LOG: &str = "check_log";
}

/// A named artifact of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub name: String,
    pub sha256: String,
    pub size: u64,
}

/// Everything recorded about one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub run: Run,
    #[serde(default)]
    pub patch_sets: Vec<PatchSet>,
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    #[serde(default)]
    pub decisions: Vec<Decision>,
    #[serde(default)]
    pub artifacts: Vec<Artifact>,
}
