//! The loop of `salve fix -- CMD` (DESIGN.md §6): turn a red check green, or stop honestly,
//! and leave the user's work intact either way.
//!
//! 1. Run the check. Green: nothing to do (`already_green`). The first repair's checkpoint is
//!    the tree as the run found it.
//! 2. Red: extract the failures and classify them **before any model call**. An environment
//!    failure is re-run within the environment budget when it looks transient, else the loop
//!    stops with `environment_failure`; it never spends repair budget.
//! 3. A repair: a rule that matches the failure (pinned, or learned outside `production`), else
//!    the model (the `default` chain, the `quality` chain after a failed attempt), asked with the
//!    failures, excerpts of the failing files, and every earlier attempt with its apply report.
//!    The model states its confidence; below the gate the repair is not applied.
//! 4. The guard reads the repair's diff before it is written: one that deletes or skips tests,
//!    weakens assertions, suppresses failures or edits the check's configuration is refused
//!    (only warned about in `sketch`).
//! 5. Apply through the same engine as `salve apply` (checkpointed), re-run the check. Not
//!    better: the attempt's checkpoint is restored before the next one.
//! 6. Stop: green; the attempt budget; no progress (the same failures after two attempts); a
//!    persisted budget spent; low confidence; strictness; no provider.
//! 7. Green: commit the touched files only (unless told not to), learn a rule from the repair.
//!    Not green: restore the checkpoint taken at the start (unless `keep`).
//!
//! Everything is recorded: one run, an attempt per check, a patch set per repair, a decision per
//! repair with its confidence and evidence.

mod attempt;
mod context;
mod finish;
mod model;
mod prompt;
mod repair;
mod separate;
mod session;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::check::Echo;
use super::classify::Classification;
use super::failures::Failure;
use super::guard::Finding;
use super::strictness::Strictness;
use crate::error::{Classified, Kind};

pub use repair::{AttemptReport, Source, Verdict};

/// The confidence a model must state for its repair to be applied: 0.75.
pub const DEFAULT_CONFIDENCE_GATE: f64 = 0.75;

/// How to fix.
#[derive(Clone, Debug)]
pub struct Options {
    /// The work tree (inside a git repository).
    pub dir: PathBuf,
    /// The check: program and arguments.
    pub command: Vec<String>,
    /// Each run of the check is killed after this long.
    pub timeout: Duration,
    /// Repair attempts at most in this run (and per failure and branch across runs).
    pub max_attempts: u32,
    /// Re-runs of a transient environment failure at most.
    pub max_env_reruns: u32,
    pub strictness: Strictness,
    /// Repairs whose stated confidence is below this are not applied.
    pub confidence_gate: f64,
    /// Commit on green; `None` takes the strictness' default.
    pub commit: Option<bool>,
    /// The commit's summary; by default `make <check> pass`.
    pub message: Option<String>,
    /// Leave the tree as the last attempt left it when not green (no restore).
    pub keep: bool,
    /// When not empty, the only paths a repair may touch.
    pub allow: Vec<PathBuf>,
    /// A fix made elsewhere (any reply or diff), verified first.
    pub proposed: Option<String>,
    /// Ask this provider alone instead of a chain.
    pub provider: Option<String>,
    /// Stop before asking a model again once the providers' reported cost reaches this many
    /// US dollars.
    pub max_cost_usd: Option<f64>,
    /// Learn a rule from a successful model repair.
    pub learn: bool,
    /// Where the check's output goes while it runs.
    pub echo: Echo,
    /// Raised by the front end (Ctrl-C): the running check is killed and the loop stops.
    pub cancel: Option<Arc<AtomicBool>>,
    /// The command line, for the record.
    pub command_line: Vec<String>,
}

impl Options {
    /// Fix `command` in `dir` with the defaults of DESIGN.md §6.
    pub fn new(dir: impl Into<PathBuf>, command: Vec<String>) -> Options {
        Options {
            dir: dir.into(),
            command,
            timeout: super::check::DEFAULT_TIMEOUT,
            max_attempts: 3,
            max_env_reruns: 2,
            strictness: Strictness::default(),
            confidence_gate: DEFAULT_CONFIDENCE_GATE,
            commit: None,
            message: None,
            keep: false,
            allow: Vec::new(),
            proposed: None,
            provider: None,
            max_cost_usd: None,
            learn: true,
            echo: Echo::None,
            cancel: None,
            command_line: Vec::new(),
        }
    }
}

/// How a fix ended: the outcome codes of DESIGN.md §6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The check passed before anything was done.
    AlreadyGreen,
    /// A repair made it pass (the first or a later one: `attempts` says which). Records of
    /// older versions say `passed_first_try` for a first one.
    Repaired,
    /// A repair that did not help could not be taken back without touching work done while the
    /// check ran; the loop stopped and kept both.
    Entangled,
    /// A rule replayed without a model made it pass.
    RuleApplied,
    /// The attempts ran out.
    Exhausted,
    /// Two attempts left the same failures.
    NoProgress,
    /// The machine, not the code, failed the check.
    EnvironmentFailure,
    /// No provider gave a repair.
    ProviderError,
    /// The model's repair came with a confidence below the gate.
    RejectedLowConfidence,
    /// The strictness forbids what was needed (a model call in production).
    BlockedByStrictness,
    /// No provider is configured or installed.
    NoProvider,
    /// A budget persisted across runs is spent for this failure.
    BudgetExhausted,
    /// Every repair weakened the check and was refused.
    GuardRejected,
    /// The proposed fix passed the check as it was.
    ProposedApplied,
    /// The proposed fix helped, and the loop finished it.
    ProposedEnhanced,
    /// The proposed fix did not apply or made things worse; the loop started from scratch.
    ProposedRejected,
    /// Stopped by the user (Ctrl-C).
    Interrupted,
}

impl Status {
    /// The snake_case code.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::AlreadyGreen => "already_green",
            Status::Repaired => "repaired",
            Status::Entangled => "entangled",
            Status::RuleApplied => "rule_applied",
            Status::Exhausted => "exhausted",
            Status::NoProgress => "no_progress",
            Status::EnvironmentFailure => "environment_failure",
            Status::ProviderError => "provider_error",
            Status::RejectedLowConfidence => "rejected_low_confidence",
            Status::BlockedByStrictness => "blocked_by_strictness",
            Status::NoProvider => "no_provider",
            Status::BudgetExhausted => "budget_exhausted",
            Status::GuardRejected => "guard_rejected",
            Status::ProposedApplied => "proposed_applied",
            Status::ProposedEnhanced => "proposed_enhanced",
            Status::ProposedRejected => "proposed_rejected",
            Status::Interrupted => "interrupted",
        }
    }
}

/// One run of the check.
#[derive(Clone, Debug, Serialize)]
pub struct CheckSummary {
    /// `passed`, or how it failed (`exited 1`, `timed out`, `not found: cargo`).
    pub status: String,
    pub passed: bool,
    pub duration_ms: u64,
    pub failures: Vec<Failure>,
    /// Absent when it passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<Classification>,
    /// The end of its output, for people and prompts.
    pub excerpt: String,
}

/// What a fix did.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub status: Status,
    /// True when the check passes at the end.
    pub green: bool,
    /// Why it stopped, in words.
    pub message: String,
    /// The check as given (with `--message-format=json` added for cargo).
    pub command: Vec<String>,
    /// Every run of the check, in order.
    pub checks: Vec<CheckSummary>,
    /// Every repair tried, in order.
    pub attempts: Vec<AttemptReport>,
    /// Files the kept repairs changed, relative to the work tree.
    pub touched: Vec<String>,
    /// The diff of the kept repairs.
    pub diff: String,
    /// The commit made on green.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Files whose repair was not committed: its lines could not be told apart from the user's
    /// uncommitted lines in the same file, so it is left in the work tree.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncommitted: Vec<String>,
    /// `passed` or `enhanced` when committed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<&'static str>,
    /// The checkpoint taken at the start: restoring it undoes the whole fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// True when the tree was put back to that checkpoint at the end.
    pub restored: bool,
    /// The rule replayed or learned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Every guard finding, refused or (in sketch) warned.
    pub guard: Vec<Finding>,
    pub provider_calls: usize,
    /// Time spent waiting for providers.
    pub provider_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The whole run; minus the checks' and the providers' time, salve's own overhead.
    pub duration_ms: u64,
    /// The run in the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_error: Option<String>,
}

impl Outcome {
    /// 0 when green at the end, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(!self.green)
    }
}

/// What a front end may show while the loop works.
#[derive(Clone, Debug)]
pub enum Event {
    /// The check starts (1-based run number).
    Check { run: u32 },
    /// A repair is asked for from this source.
    Repair { attempt: u32, source: String },
    /// The repair is being applied.
    Applying { attempt: u32 },
    /// What the chain asked for a repair reports: a provider asked, retrying, failed.
    Provider(salve_llm::ChainEvent),
    /// A section of the repository's configuration is ignored because the user has not trusted
    /// it (said once, before the first model call).
    Untrusted(String),
}

/// Why a fix could not run at all (a stop of the loop is an [`Outcome`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the check command is empty")]
    EmptyCommand,
    #[error(transparent)]
    Git(#[from] salve_git::GitError),
    #[error(transparent)]
    Checkpoint(#[from] crate::checkpoint::Error),
    #[error(transparent)]
    Check(#[from] super::check::CheckError),
    #[error(transparent)]
    Apply(#[from] crate::apply::Error),
    #[error(transparent)]
    Restore(#[from] crate::restore::Error),
    #[error(transparent)]
    Commit(#[from] crate::commit::Error),
    #[error(transparent)]
    Budget(#[from] super::budget::Error),
    #[error(transparent)]
    Rules(#[from] super::rules::Error),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::EmptyCommand => Kind::User,
            Error::Git(e) => e.kind(),
            Error::Checkpoint(e) => e.kind(),
            Error::Check(e) => e.kind(),
            Error::Apply(e) => e.kind(),
            Error::Restore(e) => e.kind(),
            Error::Commit(e) => e.kind(),
            Error::Budget(e) => e.kind(),
            Error::Rules(e) => e.kind(),
            Error::Config(_) => Kind::Config,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::EmptyCommand => "empty_command",
            Error::Git(e) => e.code(),
            Error::Checkpoint(e) => e.code(),
            Error::Check(e) => e.code(),
            Error::Apply(e) => e.code(),
            Error::Restore(e) => e.code(),
            Error::Commit(e) => e.code(),
            Error::Budget(e) => e.code(),
            Error::Rules(e) => e.code(),
            Error::Config(e) => e.code(),
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::EmptyCommand => Some("give the check to run after `--`".to_owned()),
            Error::Git(e) => e.hint(),
            Error::Checkpoint(e) => e.hint(),
            Error::Check(e) => e.hint(),
            Error::Apply(e) => e.hint(),
            Error::Restore(e) => e.hint(),
            Error::Commit(e) => e.hint(),
            Error::Budget(e) => e.hint(),
            Error::Rules(e) => e.hint(),
            Error::Config(e) => e.hint(),
        }
    }
}

/// Run the loop; see the module docs. `on` hears each phase as it starts.
pub fn fix(options: &Options, on: &mut dyn FnMut(&Event)) -> Result<Outcome, Error> {
    if options.command.is_empty() {
        return Err(Error::EmptyCommand);
    }
    // Ctrl-C stops the loop at its next step, which puts the tree back, instead of killing it.
    let _guard = crate::interrupt::guard();
    let mut session = session::Session::open(options)?;
    let stop = session.run(on);
    session.finish(stop)
}
