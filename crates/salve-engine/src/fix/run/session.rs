//! One fix run's state, and the loop itself (steps 1 to 6 of the module docs).

use std::path::PathBuf;
use std::time::Instant;

use salve_git::Repo;
use salve_store::{artifact, Batch, NewRun, RunKind};

use super::repair::{AttemptReport, Candidate, Kept, Source, Verdict};
use super::{CheckSummary, Error, Event, Options, Status};
use crate::fix::budget::{branch_of, BudgetKind, Budgets, Limits};
use crate::fix::check::{self, CheckOptions};
use crate::fix::classify::FailureClass;
use crate::fix::failures;
use crate::fix::guard::Finding;
use crate::fix::rules::Rules;
use crate::paths::canonical_root;
use crate::record::Recorder;

/// A check that ran, read and judged.
pub(super) type Checked = crate::fix::judge::Judged;

/// Why the loop stopped.
#[derive(Clone, Debug)]
pub(super) struct Stop {
    pub(super) status: Status,
    pub(super) message: String,
}

impl Stop {
    pub(super) fn new(status: Status, message: impl Into<String>) -> Stop {
        Stop {
            status,
            message: message.into(),
        }
    }
}

/// What a proposed fix turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Proposed {
    None,
    Enhancing,
    Rejected,
}

pub(super) struct Session<'o> {
    pub(super) options: &'o Options,
    pub(super) root: PathBuf,
    pub(super) command: Vec<String>,
    pub(super) budgets: Budgets,
    pub(super) rules: Rules,
    pub(super) branch: String,
    pub(super) recorder: Option<Recorder>,
    pub(super) record_error: Option<String>,
    pub(super) start_checkpoint: Option<String>,
    pub(super) checks: Vec<CheckSummary>,
    pub(super) attempts: Vec<AttemptReport>,
    pub(super) kept: Vec<Kept>,
    /// The diff of a repair applied and not yet kept or taken back, so that a loop broken off
    /// in between takes it back too.
    pub(super) pending: Option<String>,
    /// Files where a repair could not be taken back without touching work done since: the
    /// loop stops and keeps both.
    pub(super) entangled: Option<Vec<String>>,
    pub(super) guard: Vec<Finding>,
    pub(super) provider_calls: usize,
    /// Time spent waiting for providers, milliseconds.
    pub(super) provider_ms: u64,
    pub(super) costs: Vec<f64>,
    pub(super) proposed: Proposed,
    /// Rules replayed in this run, so a failed one is not tried again.
    pub(super) rules_tried: Vec<String>,
    pub(super) started: Instant,
}

impl<'o> Session<'o> {
    /// Find the repository, open the budgets and rules, start the record, checkpoint the tree.
    pub(super) fn open(options: &'o Options) -> Result<Session<'o>, Error> {
        let started = Instant::now();
        let root = canonical_root(&options.dir)
            .map_err(|e| salve_git::GitError::io(format!("{}", options.dir.display()), e))?;
        Repo::discover(&root)?;
        let limits = Limits {
            attempts: options.max_attempts,
            environment_reruns: options.max_env_reruns,
        };
        let budgets = Budgets::open(&root, limits)?;
        let rules = Rules::load(&root)?;
        let branch = branch_of(&root)?;
        let command = failures::with_message_format_json(&options.command)
            .unwrap_or_else(|| options.command.clone());
        let mut new = NewRun::new(RunKind::Fix, options.command_line.clone());
        new.budgets = Some(serde_json::json!({
            "attempts": options.max_attempts,
            "environment_reruns": options.max_env_reruns,
            "strictness": options.strictness.as_str(),
            "confidence_gate": options.confidence_gate,
        }));
        let (recorder, record_error) = match Recorder::start(&root, &new) {
            Ok(r) => (r.map(Recorder::redacting), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Session {
            options,
            root,
            command,
            budgets,
            rules,
            branch,
            recorder,
            record_error,
            // The checkpoint of the first repair is taken before anything is written: the tree
            // as the run found it. Runs that write nothing need none.
            start_checkpoint: None,
            checks: Vec::new(),
            attempts: Vec::new(),
            kept: Vec::new(),
            pending: None,
            entangled: None,
            guard: Vec::new(),
            provider_calls: 0,
            provider_ms: 0,
            costs: Vec::new(),
            proposed: Proposed::None,
            rules_tried: Vec::new(),
            started,
        })
    }

    /// Steps 1 to 6: until green or a stop.
    pub(super) fn run(&mut self, on: &mut dyn FnMut(&Event)) -> Result<Stop, Error> {
        let mut checked = match self.check_settled(on)? {
            Ok(checked) => checked,
            Err(stop) => return Ok(stop),
        };
        if checked.passed() && self.options.proposed.is_none() {
            return Ok(Stop::new(
                Status::AlreadyGreen,
                "the check passes; nothing to fix",
            ));
        }
        if let Some(text) = self.options.proposed.clone() {
            match self.try_proposed(&text, &checked, on)? {
                Ok(after) if after.passed() => {
                    return Ok(Stop::new(
                        Status::ProposedApplied,
                        "the proposed fix makes the check pass",
                    ))
                }
                Ok(after) => {
                    self.proposed = Proposed::Enhancing;
                    checked = after;
                }
                Err(()) => self.proposed = Proposed::Rejected,
            }
            if checked.passed() {
                return Ok(Stop::new(Status::AlreadyGreen, "the check passes"));
            }
        }
        self.repair(checked, on)
    }

    /// The repair loop from a failing check.
    fn repair(&mut self, mut checked: Checked, on: &mut dyn FnMut(&Event)) -> Result<Stop, Error> {
        let mut tries = 0u32;
        let mut stuck = 0u32;
        loop {
            if checked.passed() {
                return Ok(self.green_stop());
            }
            if self.cancelled() {
                return Ok(Stop::new(Status::Interrupted, "stopped by the user"));
            }
            if tries >= self.options.max_attempts {
                return Ok(self.exhausted_stop(tries));
            }
            if let Err(e) =
                self.budgets
                    .gate(&self.branch, &checked.signature, BudgetKind::Attempts)
            {
                return Ok(Stop::new(Status::BudgetExhausted, e.to_string()));
            }
            let candidate = match self.candidate(&checked, tries, on)? {
                Ok(candidate) => candidate,
                Err(stop) => return Ok(stop),
            };
            tries += 1;
            if candidate.confidence.is_none() && matches!(candidate.source, Source::Model { .. }) {
                self.attempts
                    .push(AttemptReport::low_confidence(tries, &candidate));
                self.record_decision(&candidate, "not applied: no confidence stated");
                return Ok(Stop::new(
                    Status::RejectedLowConfidence,
                    "the repair states no confidence, even when asked; below the gate, nothing \
                     is applied",
                ));
            }
            if let Some(c) = candidate.confidence {
                if c < self.options.confidence_gate {
                    self.attempts
                        .push(AttemptReport::low_confidence(tries, &candidate));
                    self.record_decision(&candidate, "not applied: confidence below the gate");
                    return Ok(Stop::new(
                        Status::RejectedLowConfidence,
                        format!(
                            "the repair's stated confidence {c:.2} is below the gate {:.2}; not \
                             applied",
                            self.options.confidence_gate
                        ),
                    ));
                }
            }
            self.budgets
                .spend(&self.branch, &checked.signature, BudgetKind::Attempts)?;
            let (verdict, after) = self.attempt(tries, &candidate, &checked, on)?;
            if let Some(files) = &self.entangled {
                return Ok(Stop::new(
                    Status::Entangled,
                    format!(
                        "a repair that did not help could not be taken back without touching \
                         work done since in {}; both were kept",
                        files.join(", ")
                    ),
                ));
            }
            match (verdict, after) {
                (Verdict::Green, Some(after)) => {
                    // The budget counts failed attempts: a repair that made the check pass
                    // gives this failure its whole budget back.
                    self.budgets
                        .reset(Some(&self.branch), Some(&checked.signature))?;
                    checked = after;
                }
                (Verdict::Better, Some(after)) => checked = after,
                (Verdict::NotBetter, Some(after)) if after.signature == checked.signature => {
                    stuck += 1;
                    if stuck >= 2 {
                        return Ok(Stop::new(
                            Status::NoProgress,
                            "two repairs left the same failures",
                        ));
                    }
                }
                (Verdict::Interrupted, _) => {
                    return Ok(Stop::new(Status::Interrupted, "stopped by the user"))
                }
                (Verdict::Environment, Some(after)) => {
                    let reason = after.class.map(|c| c.reason).unwrap_or_default();
                    return Ok(Stop::new(Status::EnvironmentFailure, reason));
                }
                _ => {}
            }
        }
    }

    fn green_stop(&self) -> Stop {
        let last = self.kept.last().map(|k| k.source.clone());
        let status = match last {
            Some(Source::Rule { .. }) => Status::RuleApplied,
            _ => Status::Repaired,
        };
        Stop::new(status, "the check passes")
    }

    fn exhausted_stop(&self, tries: u32) -> Stop {
        let all_guarded = !self.attempts.is_empty()
            && self
                .attempts
                .iter()
                .all(|a| a.verdict == Verdict::GuardRejected);
        if all_guarded {
            Stop::new(
                Status::GuardRejected,
                "every repair weakened the check and was refused",
            )
        } else {
            Stop::new(
                Status::Exhausted,
                format!("{tries} repair attempts did not make the check pass"),
            )
        }
    }

    pub(super) fn cancelled(&self) -> bool {
        self.options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Run the check, then re-run it while it fails for a transient environment reason and the
    /// environment budget allows; a lasting environment failure is a stop.
    pub(super) fn check_settled(
        &mut self,
        on: &mut dyn FnMut(&Event),
    ) -> Result<Result<Checked, Stop>, Error> {
        let mut reruns = 0;
        loop {
            let checked = self.check(on)?;
            if checked.result.status == check::Status::Cancelled || self.cancelled() {
                return Ok(Err(Stop::new(Status::Interrupted, "stopped by the user")));
            }
            let Some(class) = checked.class.clone() else {
                return Ok(Ok(checked));
            };
            if class.class == FailureClass::Code {
                return Ok(Ok(checked));
            }
            let gate = self.budgets.gate(
                &self.branch,
                &checked.signature,
                BudgetKind::EnvironmentReruns,
            );
            if class.transient && reruns < self.options.max_env_reruns && gate.is_ok() {
                self.budgets.spend(
                    &self.branch,
                    &checked.signature,
                    BudgetKind::EnvironmentReruns,
                )?;
                reruns += 1;
                continue;
            }
            return Ok(Err(Stop::new(
                Status::EnvironmentFailure,
                format!(
                    "the check failed for a reason outside the code: {}",
                    class.reason
                ),
            )));
        }
    }

    /// Run the check once, read and judge it, and record it.
    pub(super) fn check(&mut self, on: &mut dyn FnMut(&Event)) -> Result<Checked, Error> {
        let run = self.checks.len() as u32 + 1;
        on(&Event::Check { run });
        // With cargo's JSON messages added, the raw lines are for salve; people see the
        // messages as cargo renders them, once the check is done.
        let json_added = self.command != self.options.command;
        let result = check::run(&CheckOptions {
            timeout: self.options.timeout,
            echo: if json_added {
                check::Echo::None
            } else {
                self.options.echo
            },
            cancel: self.options.cancel.clone(),
            ..CheckOptions::new(&self.root, self.command.clone())
        })?;
        if json_added {
            echo_rendered(self.options.echo, &result.log_text());
        }
        let checked = crate::fix::judge::read(&self.root, &self.command, result);
        self.checks.push(summary(&checked));
        self.record_check(run, &checked);
        Ok(checked)
    }

    fn record_check(&mut self, run: u32, checked: &Checked) {
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        let name = format!("{}.{run}", artifact::CHECK_LOG);
        let command = crate::record::shell_words(&self.command);
        let exit_code = match checked.result.status {
            check::Status::Exited { code } => Some(code),
            _ => None,
        };
        let failure_class = checked.class.as_ref().map(|c| match c.class {
            FailureClass::Code => format!("code: {}", c.reason),
            FailureClass::Environment => format!("environment: {}", c.reason),
        });
        let attempt = salve_store::Attempt {
            check_command: Some(command),
            exit_code,
            failure_class,
            duration_ms: Some(checked.result.duration_ms),
            log_artifact: Some(name.clone()),
            ..salve_store::Attempt::default()
        };
        let done = recorder.batch(&Batch {
            artifacts: vec![(name.as_str(), checked.result.log.as_slice())],
            attempts: vec![attempt],
            ..Batch::default()
        });
        if let Err(e) = done {
            self.record_error.get_or_insert(e.to_string());
        }
    }

    /// Keep a decision about a repair in the record.
    pub(super) fn record_decision(&mut self, candidate: &Candidate, chosen: &str) {
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        let decision = salve_store::Decision {
            seq: 0,
            chosen: format!("{}: {chosen}", candidate.source.describe()),
            alternatives: Vec::new(),
            confidence: candidate.confidence,
            evidence: candidate.rationale.clone(),
        };
        if let Err(e) = recorder.batch(&Batch {
            decisions: vec![decision],
            ..Batch::default()
        }) {
            self.record_error.get_or_insert(e.to_string());
        }
    }
}

fn summary(checked: &Checked) -> CheckSummary {
    let status = checked.result.status.to_string();
    CheckSummary {
        status,
        passed: checked.passed(),
        duration_ms: checked.result.duration_ms,
        failures: checked.failures.clone(),
        class: checked.class.clone(),
        excerpt: tail(&checked.result.output, 40),
    }
}

/// The last `lines` lines of `text`.
pub(super) fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let from = all.len().saturating_sub(lines);
    let mut out = all[from..].join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Cargo's output as it would have looked without `--message-format=json`: each message's
/// rendered text, and every line that is not a JSON message as it is.
fn echo_rendered(echo: check::Echo, log: &str) {
    use std::io::Write as _;
    let mut text = String::new();
    for line in log.lines() {
        if line.starts_with('{') {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(line) {
                if let Some(rendered) = value["message"]["rendered"].as_str() {
                    text.push_str(rendered);
                }
                continue;
            }
        }
        text.push_str(line);
        text.push('\n');
    }
    // Nothing to do if the terminal is gone.
    let _ = match echo {
        check::Echo::None => Ok(()),
        check::Echo::Stdout => std::io::stdout().lock().write_all(text.as_bytes()),
        check::Echo::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
        check::Echo::With(write) => {
            write(text.as_bytes());
            Ok(())
        }
    };
}
