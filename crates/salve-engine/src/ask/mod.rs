//! `ask`: build a prompt, ask a provider chain, apply the edit, follow up once when it is
//! refused, and record everything.
//!
//! The steps, in order:
//! 1. Build the prompt ([`prompt`]): instruction, source files with their staged diffs, target
//!    files, `.salve/instructions.md`, and the edit formats salve reads.
//! 2. Run the chain ([`salve_llm::Chain`]): providers in order until one gives an edit or the
//!    `NO_CHANGES_NEEDED` sentinel. No answer at all is the outcome `provider_error`, with
//!    every provider's reason.
//! 3. Apply the edit through [`crate::apply`], which checkpoints before writing (so
//!    `salve undo` reverts an ask), or only checks it under `dry_run`.
//! 4. Refused: send the apply report back to the same provider as a follow-up, so the model
//!    can correct its own edit, as many times as the follow-up budget allows.
//! 5. Record the run with one call to a [`Recorder`]: the prompt, every provider call, and per
//!    round the raw reply, extracted diff, sanitized diff, final diff and apply report.
//!
//! Everything that leaves the process is redacted first ([`salve_llm::secret::redact`]), so an
//! API key a model or a server echoes never reaches the record or the output.

pub mod artifacts;
mod chain;
mod follow_up;
pub mod prompt;
pub mod record;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use salve_llm::secret::redact;
use salve_llm::{Attempt, Cancel, Chain, Meta, ReplyClass, Request};
use salve_patch::Extraction;
use salve_patch::{Outcome as ReportOutcome, Report};
use serde::Serialize;

use crate::apply;
use crate::config::{ConfigError, ModelHint};
use crate::error::{Classified, Kind};
use crate::paths::canonical_root;
pub use follow_up::follow_up_message;
pub use prompt::{Prompt, PromptError, PromptInput, DEFAULT_MAX_PROMPT_FILE};
pub use record::{AskRecord, NoRecord, Recorder, StoreRecorder};
pub use salve_llm::secret::redact as redact_secrets;
pub use salve_llm::ChainEvent;

/// How to ask.
#[derive(Clone, Debug)]
pub struct Options {
    /// The work tree; every path is relative to it.
    pub dir: PathBuf,
    pub instruction: String,
    /// Source files: their staged diff and content go into the prompt.
    pub files: Vec<PathBuf>,
    /// Target files: their current content (or that they are new) goes into the prompt.
    pub targets: Vec<PathBuf>,
    /// Ask and place the edit, but write nothing.
    pub dry_run: bool,
    /// Follow-ups after a refused edit; `None` takes the configuration's.
    pub follow_ups: Option<u32>,
    /// Use the `fast` or `quality` chain instead of `default`.
    pub model_hint: Option<ModelHint>,
    /// Ask this provider alone instead of a chain.
    pub provider: Option<String>,
    /// Append every reply to this cassette, for replay later.
    pub cassette: Option<PathBuf>,
    /// Files larger than this are not put into the prompt.
    pub max_prompt_file: u64,
    /// The command line, for the record.
    pub command: Vec<String>,
    /// Raised to stop the ask (Ctrl-C): a provider's process tree is killed, nothing is
    /// applied, and the run is recorded `interrupted`.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Options {
    pub fn new(dir: impl Into<PathBuf>, instruction: impl Into<String>) -> Options {
        Options {
            dir: dir.into(),
            instruction: instruction.into(),
            files: Vec::new(),
            targets: Vec::new(),
            dry_run: false,
            follow_ups: None,
            model_hint: None,
            provider: None,
            cassette: None,
            max_prompt_file: DEFAULT_MAX_PROMPT_FILE,
            command: Vec::new(),
            cancel: None,
        }
    }
}

/// How an ask ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The edit was written.
    Applied,
    /// The edit was already in place; nothing written.
    AlreadyApplied,
    /// The model said nothing needs to change.
    NoChange,
    /// `dry_run`: the edit places; nothing written.
    Checked,
    /// The edit was refused (after the follow-ups); nothing written.
    Refused,
    /// No provider gave an edit.
    ProviderError,
    /// Stopped by the user before anything was written.
    Interrupted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Applied => "applied",
            Status::AlreadyApplied => "already_applied",
            Status::NoChange => "no_change",
            Status::Checked => "checked",
            Status::Refused => "refused",
            Status::ProviderError => "provider_error",
            Status::Interrupted => "interrupted",
        }
    }

    /// 0 when the job succeeded, 1 when it ran and did not, 130 when the user stopped it (as
    /// a shell reports SIGINT).
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Applied | Status::AlreadyApplied | Status::NoChange | Status::Checked => 0,
            Status::Refused | Status::ProviderError => 1,
            Status::Interrupted => 130,
        }
    }
}

/// One answer and what became of it.
#[derive(Clone, Debug, Serialize)]
pub struct Round {
    pub provider: String,
    /// True for an answer to a follow-up.
    pub follow_up: bool,
    pub class: ReplyClass,
    pub meta: Meta,
    /// The reply, redacted.
    #[serde(skip)]
    pub reply: String,
    #[serde(skip)]
    pub extraction: Extraction,
    /// The edits as extracted, rendered as a diff.
    #[serde(skip)]
    pub extracted_diff: String,
    /// The edits accepted for placement, with resolved paths.
    #[serde(skip)]
    pub sanitized_diff: String,
    /// What was written.
    #[serde(skip)]
    pub final_diff: String,
    /// The apply report; absent for a no-change answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
}

/// Milliseconds spent in each part of an ask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Timings {
    pub prompt_ms: u64,
    /// Waiting for providers (their reported latencies).
    pub provider_ms: u64,
    pub apply_ms: u64,
    pub record_ms: u64,
    pub total_ms: u64,
}

/// What an ask did.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub status: Status,
    pub chain: String,
    /// The provider whose answer was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    pub rounds: Vec<Round>,
    /// Every provider call, follow-ups included.
    pub attempts: Vec<Attempt>,
    /// Files written, relative to the work tree.
    pub written: Vec<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Why the ask did not succeed (all providers failed, a follow-up gave nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The run id in the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Recording failed (the ask itself did not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_error: Option<String>,
    /// Sections of the repository's configuration ignored because the user has not trusted
    /// them, one note each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<String>,
    #[serde(skip)]
    pub prompt: String,
    pub timings: Timings,
}

impl Outcome {
    fn new(chain: &str, prompt: String, prompt_ms: u64) -> Outcome {
        Outcome {
            status: Status::ProviderError,
            chain: chain.to_owned(),
            provider: None,
            rounds: Vec::new(),
            attempts: Vec::new(),
            written: Vec::new(),
            checkpoint: None,
            baseline: None,
            message: None,
            run: None,
            record_error: None,
            untrusted: Vec::new(),
            prompt,
            timings: Timings {
                prompt_ms,
                ..Timings::default()
            },
        }
    }

    /// The last apply report.
    pub fn report(&self) -> Option<&Report> {
        self.rounds.iter().rev().find_map(|r| r.report.as_ref())
    }

    /// The JSON printed by `salve ask --json`, redacted.
    pub fn to_json(&self) -> String {
        let text =
            serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
        redact(&text)
    }
}

/// An ask that could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file for the prompt cannot be used.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// The edit could not be applied (not a refusal: an error that stopped the apply).
    #[error(transparent)]
    Apply(#[from] apply::Error),
    /// The configuration names no usable chain or provider.
    #[error("{}", redact(&.0.to_string()))]
    Config(#[from] ConfigError),
    /// The cassette to record to cannot be written.
    #[error("cannot write the cassette {}: {source}", path.display())]
    Cassette {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Prompt(_) | Error::Cassette { .. } => Kind::User,
            Error::Apply(e) => e.kind(),
            Error::Config(_) => Kind::Config,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Prompt(_) => "bad_prompt_file",
            Error::Apply(e) => e.code(),
            Error::Config(e) => e.code(),
            Error::Cassette { .. } => "unwritable_cassette",
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::Prompt(_) => Some(
                "source files must exist; name a file the change creates as a target".to_owned(),
            ),
            Error::Apply(e) => e.hint(),
            Error::Config(e) => e.hint(),
            Error::Cassette { .. } => {
                Some("check that the cassette's directory exists and is writable".to_owned())
            }
        }
    }
}

/// Reported to the caller once the chain is known, before any provider is asked.
#[derive(Clone, Debug)]
pub struct Asking {
    /// The chain's name.
    pub chain: String,
    /// Its providers, in order.
    pub providers: Vec<String>,
    /// Sections of the repository's configuration ignored because the user has not trusted
    /// them, one note each.
    pub untrusted: Vec<String>,
}

/// What an ask reports while it works, for a progress display.
#[derive(Clone, Debug)]
pub enum Event {
    /// The chain is known; no provider has been asked yet.
    Asking(Asking),
    /// What the chain reports: a provider asked, retrying, failed, waited for.
    Provider(salve_llm::ChainEvent),
    /// An answer is being applied (or, under `dry_run`, checked).
    Applying { follow_up: bool },
}

/// Ask the configured chain (or provider) and apply its edit, recorded; see the module docs.
/// `on` hears which chain is asked before the first call, then each [`Event`] as it happens.
pub fn ask(options: &Options, on: &mut dyn FnMut(&Event)) -> Result<Outcome, Error> {
    // With a cancel flag, Ctrl-C only raises it: the ask then kills the provider's tree and
    // records the run before returning, rather than dying with the provider left running.
    let _guard = options.cancel.is_some().then(crate::interrupt::guard);
    let (chain, follow_ups, untrusted) = chain::build(options)?;
    on(&Event::Asking(Asking {
        untrusted: untrusted.clone(),
        chain: chain.name().to_owned(),
        providers: chain
            .providers()
            .iter()
            .map(|p| p.name().to_owned())
            .collect(),
    }));
    let options = Options {
        follow_ups: Some(follow_ups),
        ..options.clone()
    };
    let mut outcome = with_chain_observed(&options, &chain, &mut StoreRecorder::default(), on)?;
    outcome.untrusted = untrusted;
    Ok(outcome)
}

fn ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Ask `chain` and keep the run with `recorder`: steps 1 to 5 of the module docs.
pub fn with_chain(
    options: &Options,
    chain: &Chain,
    recorder: &mut dyn Recorder,
) -> Result<Outcome, Error> {
    with_chain_observed(options, chain, recorder, &mut |_| {})
}

/// [`with_chain`], telling `on` each [`Event`] as it happens.
pub fn with_chain_observed(
    options: &Options,
    chain: &Chain,
    recorder: &mut dyn Recorder,
    on: &mut dyn FnMut(&Event),
) -> Result<Outcome, Error> {
    let start = Instant::now();
    // 1. The prompt.
    let prompt = prompt::build(&PromptInput {
        dir: &options.dir,
        instruction: &options.instruction,
        files: &options.files,
        targets: &options.targets,
        max_file_size: options.max_prompt_file,
    })?;
    let root = canonical_root(&options.dir).map_err(|source| PromptError::Dir {
        dir: options.dir.clone(),
        source,
    })?;
    let mut outcome = Outcome::new(chain.name(), prompt.text.clone(), ms(start));
    // 2. The chain, until a provider gives an edit.
    let cancel = options.cancel.clone().map(Cancel::new).unwrap_or_default();
    let mut request = Request::new(prompt.text).with_cancel(cancel);
    let mut answer = match chain.run_observed(&request, &mut |e| on(&Event::Provider(e.clone()))) {
        Ok(answered) => {
            outcome.attempts = answered.attempts;
            answered.answer
        }
        Err(all_failed) => {
            outcome.message = Some(all_failed.to_string());
            outcome.attempts = all_failed.attempts;
            interrupted(options, &mut outcome);
            return Ok(finish(outcome, options, recorder, start));
        }
    };
    let mut follow_ups_left = options
        .follow_ups
        .unwrap_or(crate::config::DEFAULT_FOLLOW_UPS);
    let mut follow_up = false;
    let mut apply_ms = 0;
    loop {
        outcome.provider = Some(answer.provider.name().to_owned());
        // An answer that arrives as the user stops the ask is not applied.
        if interrupted(options, &mut outcome) {
            break;
        }
        // 3. Apply the answer.
        on(&Event::Applying { follow_up });
        let apply_start = Instant::now();
        let report = match apply_round(options, &root, &answer, follow_up, &mut outcome) {
            Err(Error::Apply(e)) if e.is_interrupted() => {
                interrupted(options, &mut outcome);
                break;
            }
            other => other?,
        };
        apply_ms += ms(apply_start);
        let Some(report) = report else {
            break;
        };
        outcome.status = match report.outcome {
            ReportOutcome::Applied if options.dry_run => Status::Checked,
            ReportOutcome::Applied => Status::Applied,
            ReportOutcome::AlreadyApplied => Status::AlreadyApplied,
            ReportOutcome::Partial | ReportOutcome::Refused => Status::Refused,
        };
        if outcome.status != Status::Refused || follow_ups_left == 0 {
            break;
        }
        // 4. Refused: the report goes back to the same provider.
        follow_ups_left -= 1;
        request = request.follow_up(&answer.reply.text, follow_up_message(&report));
        match salve_llm::chain::call_observed(
            &answer.provider,
            &request,
            &chain.retry(),
            &mut outcome.attempts,
            &mut |e| on(&Event::Provider(e.clone())),
        ) {
            Some(next) => {
                answer = next;
                follow_up = true;
            }
            None if interrupted(options, &mut outcome) => break,
            None => {
                let reason = outcome
                    .attempts
                    .last()
                    .and_then(|a| a.reason.clone())
                    .unwrap_or_default();
                outcome.message = Some(format!(
                    "the follow-up to {} gave no usable answer: {reason}",
                    answer.provider.name()
                ));
                break;
            }
        }
    }
    outcome.timings.apply_ms = apply_ms;
    // 5. The record.
    Ok(finish(outcome, options, recorder, start))
}

/// When the user stopped the ask, mark `outcome` so (nothing was written: the apply stops
/// before its writes) and say true.
fn interrupted(options: &Options, outcome: &mut Outcome) -> bool {
    let stopped = options
        .cancel
        .as_ref()
        .is_some_and(|c| c.load(Ordering::SeqCst));
    if stopped {
        outcome.status = Status::Interrupted;
        outcome.message = Some(
            "stopped by the user: the provider's processes were killed and nothing was written"
                .to_owned(),
        );
    }
    stopped
}

/// Step 3 for one answer: extract and apply its edit (or only check it), keep the round with
/// its diffs in `outcome`, and return the apply report; `None` for a no-change answer.
fn apply_round(
    options: &Options,
    root: &std::path::Path,
    answer: &salve_llm::chain::Answer,
    follow_up: bool,
    outcome: &mut Outcome,
) -> Result<Option<Report>, Error> {
    let text = &answer.reply.text;
    let extraction = salve_patch::extract(text);
    let mut round = Round {
        provider: answer.provider.name().to_owned(),
        follow_up,
        class: answer.class,
        meta: answer.reply.meta.clone(),
        reply: redact(text),
        extracted_diff: redact(&artifacts::render_edits(&extraction)),
        extraction,
        sanitized_diff: String::new(),
        final_diff: String::new(),
        report: None,
    };
    if answer.class == ReplyClass::NoChange {
        outcome.rounds.push(round);
        outcome.status = Status::NoChange;
        return Ok(None);
    }
    let snapshot = if options.dry_run {
        artifacts::Snapshot::default()
    } else {
        artifacts::Snapshot::take(root, &round.extraction)
    };
    let mut apply_options = apply::Options::new(&options.dir);
    apply_options.check = options.dry_run;
    apply_options.operation = "ask".to_owned();
    // The ask keeps its own run, with every round in it.
    apply_options.record = false;
    let applied = apply::apply(text, &apply_options)?;
    if !applied.written.is_empty() {
        let checkpoint = applied.checkpoint.clone();
        let fallback = |rel: &str| checkpoint_blob(root, checkpoint.as_deref(), rel);
        round.final_diff = redact(&artifacts::final_diff(
            root,
            &applied.written,
            &snapshot,
            &fallback,
        ));
    }
    round.sanitized_diff = redact(&artifacts::sanitized(&round.extraction, &applied.report));
    outcome.baseline = applied.baseline.or(outcome.baseline.take());
    if applied.checkpoint.is_some() {
        outcome.checkpoint = applied.checkpoint;
    }
    outcome.written.extend(applied.written);
    round.report = Some(applied.report.clone());
    outcome.rounds.push(round);
    Ok(Some(applied.report))
}

/// The content of `rel` in the checkpoint `id`: `Some(None)` when the checkpoint has no such
/// file, `None` when it cannot be read.
fn checkpoint_blob(root: &std::path::Path, id: Option<&str>, rel: &str) -> Option<Option<String>> {
    let repo = salve_git::Repo::discover(root).ok()?;
    let checkpoint = salve_git::checkpoint::find(&repo, id?).ok()?;
    // The blob path is relative to the repository root, the work tree may be below it.
    let prefix = root
        .strip_prefix(&repo.root)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty());
    let path = match prefix {
        Some(prefix) => format!("{prefix}/{rel}"),
        None => rel.to_owned(),
    };
    let blob = repo.blob_at(&checkpoint.tree, &path).ok()?;
    Some(blob.map(|b| String::from_utf8_lossy(&b).into_owned()))
}

/// Total the timings, record the run, and return the outcome.
fn finish(
    mut outcome: Outcome,
    options: &Options,
    recorder: &mut dyn Recorder,
    start: Instant,
) -> Outcome {
    outcome.message = outcome.message.map(|m| redact(&m));
    outcome.timings.provider_ms = outcome
        .attempts
        .iter()
        .filter_map(|a| a.meta.as_ref())
        .map(|m| m.latency_ms)
        .sum();
    let record_start = Instant::now();
    match recorder.record(&AskRecord {
        command: &options.command,
        dir: &options.dir,
        outcome: &outcome,
        follow_ups: options
            .follow_ups
            .unwrap_or(crate::config::DEFAULT_FOLLOW_UPS),
    }) {
        Ok(run) => outcome.run = run,
        Err(e) => outcome.record_error = Some(redact(&e)),
    }
    outcome.timings.record_ms = ms(record_start);
    outcome.timings.total_ms = ms(start);
    outcome
}
