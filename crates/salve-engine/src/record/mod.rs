//! The record: the one place runs are written ([`Recorder`]), and the operations that read and
//! move it: [`log()`], [`show()`], [`export()`], [`import()`] and [`gc()`].
//!
//! apply, ask and fix all write through [`Recorder`], and map their apply reports to patch sets
//! and decisions the same way, so a run means the same whichever job made it.

mod error;
mod exchange;
mod gc;
mod log;
pub(crate) mod report;
mod show;

use std::path::Path;

use salve_llm::secret::redact;
use salve_patch::Report;
use salve_store::{artifact, status, Batch, Finish, NewRun, Store};

pub use error::Error;
pub use exchange::{export, import, ExportOptions, ExportOutcome, ImportOptions, Selection};
pub use gc::{gc, GcOptions, GcOutcome, DEFAULT_KEEP_MS};
pub use log::{log, runs_by_checkpoint, stamp, LogOptions, LogOutcome, RecordState};
pub use show::{show, NamedReport, ShowOptions, ShowOutcome, Shown};

// The record's own types, as front ends render them.
pub use salve_store::time::{parse_duration, parse_point};
pub use salve_store::{
    Artifact, Attempt, Decision, FileChange, ImportStats, PatchSet, PatchStatus, Run, RunKind,
    RunRecord, RunSummary, Timestamp, TouchedFile, Usage,
};
pub use salve_store::{GcStats, StoreError};

/// Every status a run can end with (or have while it runs), for validating filters: the
/// record's own (`running`, `interrupted`, `error`), apply's, ask's and fix's outcome codes.
pub const STATUSES: &[&str] = &[
    "running",
    "interrupted",
    "error",
    // runs a restore took back (a filter: the run keeps its own status too)
    "rewound",
    // apply
    "applied",
    "already_applied",
    "partial",
    "refused",
    "checked",
    // ask
    "no_change",
    "provider_error",
    // fix (DESIGN.md §6)
    "passed_first_try",
    "repaired",
    "rule_applied",
    "already_green",
    "exhausted",
    "no_progress",
    "environment_failure",
    "rejected_low_confidence",
    "blocked_by_strictness",
    "no_provider",
    "budget_exhausted",
    "guard_rejected",
    "proposed_applied",
    "proposed_enhanced",
    "proposed_rejected",
    "entangled",
];

/// Arguments joined the way a shell would read them back.
pub fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A provider call as the record keeps it: who, which model, tokens, cost, latency, and how the
/// reply was classed (with the failure's kind when the call failed).
pub fn provider_call(call: &salve_llm::Attempt) -> Attempt {
    let meta = call.meta.as_ref();
    Attempt {
        provider: Some(call.provider.clone()),
        model: meta.and_then(|m| m.model.clone()),
        tokens_in: meta.and_then(|m| m.tokens_in),
        tokens_out: meta.and_then(|m| m.tokens_out),
        cost_usd: meta.and_then(|m| m.cost_usd),
        latency_ms: meta.map(|m| m.latency_ms),
        failure_class: Some(match call.failure {
            Some(kind) => format!("{}: {}", call.class.as_str(), kind.as_str()),
            None => call.class.as_str().to_owned(),
        }),
        ..Attempt::default()
    }
}

/// A run being written. Recording is best effort for the job: a record that cannot be written
/// costs the job a warning, never its work.
#[derive(Debug)]
pub struct Recorder {
    store: Store,
    run: String,
    /// Patch sets written so far: this recorder is the run's only writer.
    patch_sets: u32,
    /// Secrets are masked in what [`Recorder::applied`] keeps (for runs that talk to models,
    /// whose replies may echo a key).
    redact: bool,
}

/// An apply's report and what it wrote, as a run keeps it.
#[derive(Clone, Copy, Debug)]
pub struct Applied<'a> {
    pub report: &'a Report,
    /// The unified diff of what was written (or would be, under a check); empty for none.
    pub diff: &'a str,
    pub baseline: Option<&'a str>,
    /// Appended to the artifact names (`.2` for a second round), so rounds do not overwrite.
    pub suffix: &'a str,
    /// Why this patch set exists (`answer from claude`), for runs with several.
    pub rationale: Option<&'a str>,
}

impl Recorder {
    /// Start a run for work in `dir`; `None` where no record is kept (a plain directory without
    /// `.salve/`).
    pub fn start(dir: &Path, new: &NewRun) -> Result<Option<Recorder>, StoreError> {
        let Some(mut store) = Store::open_if_kept(dir)? else {
            return Ok(None);
        };
        let run = store.begin_run(new)?;
        Ok(Some(Recorder {
            store,
            run,
            patch_sets: 0,
            redact: false,
        }))
    }

    /// Start an apply-like run and keep its reply, in one commit.
    pub(crate) fn start_with_reply(
        dir: &Path,
        new: &NewRun,
        reply: &str,
    ) -> Result<Option<Recorder>, StoreError> {
        let Some(mut store) = Store::open_if_kept(dir)? else {
            return Ok(None);
        };
        let (run, _) = store.begin_run_with(new, &[(artifact::RAW_REPLY, reply.as_bytes())])?;
        // An apply starts its run on a side thread while it places and writes: compiling the
        // end's statements here keeps them off the wait for the end. The run has started, so
        // a failure here must not stop it: the end compiles what is missing and reports its
        // own error.
        let _ = store.prepare_finish();
        Ok(Some(Recorder {
            store,
            run,
            patch_sets: 0,
            redact: false,
        }))
    }

    /// Mask secrets in the reports, reasons and decisions kept from now on.
    pub fn redacting(mut self) -> Recorder {
        self.redact = true;
        self
    }

    /// The run's id.
    pub fn run_id(&self) -> &str {
        &self.run
    }

    /// Keep `bytes` as the run's artifact `name`.
    pub fn artifact(&mut self, name: &str, bytes: &[u8]) -> Result<Artifact, StoreError> {
        self.store.put_artifact(&self.run, name, bytes)
    }

    /// Add rows in one transaction.
    pub fn batch(&mut self, batch: &Batch<'_>) -> Result<(), StoreError> {
        self.store.add_batch(&self.run, batch)?;
        self.patch_sets += batch.patch_sets.len() as u32;
        Ok(())
    }

    /// Keep an apply report: the report and diff as artifacts, its patch sets and decisions.
    /// Returns the sequence numbers the patch sets got, in order.
    pub fn applied(&mut self, applied: &Applied<'_>) -> Result<Vec<u32>, StoreError> {
        let rows = self.applied_rows(applied)?;
        self.batch(&rows.batch(applied.diff))?;
        Ok(self.last_seqs(rows.patch_sets.len()))
    }

    /// [`Recorder::applied`] and [`Recorder::finish_report`] in one commit: an apply's end,
    /// which its caller waits for.
    pub(crate) fn finish_applied(
        mut self,
        applied: &Applied<'_>,
        checkpoint: Option<&str>,
    ) -> Result<String, StoreError> {
        let rows = self.applied_rows(applied)?;
        let finish = report_finish(applied.report, applied.baseline, checkpoint);
        self.store
            .finish_run_with(&self.run, &rows.batch(applied.diff), &finish)?;
        Ok(self.run)
    }

    /// The rows and artifacts an apply report is kept as.
    fn applied_rows(&self, applied: &Applied<'_>) -> Result<AppliedRows, StoreError> {
        let mut report_json = serde_json::to_string_pretty(applied.report)
            .map_err(|e| StoreError::Invalid(format!("encoding the report: {e}")))?;
        let mut decisions = report::decisions(applied.report);
        if self.redact {
            report_json = redact(&report_json);
            for d in &mut decisions {
                d.evidence = d.evidence.as_deref().map(redact);
            }
        }
        let diff_sha = (!applied.diff.is_empty())
            .then(|| salve_store::objects::sha256_hex(applied.diff.as_bytes()));
        let mut patch_sets = report::patch_sets(applied.report, applied.baseline, diff_sha);
        for p in &mut patch_sets {
            p.rationale = applied.rationale.map(str::to_owned);
            if self.redact {
                p.reason = p.reason.as_deref().map(redact);
            }
        }
        Ok(AppliedRows {
            report_name: format!("{}{}", artifact::APPLY_REPORT, applied.suffix),
            diff_name: format!("{}{}", artifact::FINAL_DIFF, applied.suffix),
            report_json,
            patch_sets,
            decisions,
        })
    }

    /// The sequence numbers of the last `count` patch sets written.
    fn last_seqs(&self, count: usize) -> Vec<u32> {
        let count = count as u32;
        (self.patch_sets - count + 1..=self.patch_sets).collect()
    }

    /// Mark patch sets (by sequence number) rejected, with why: a repair that was undone.
    pub fn reject_patch_sets(&mut self, seqs: &[u32], reason: &str) -> Result<(), StoreError> {
        for seq in seqs {
            self.store.set_patch_status(
                &self.run,
                *seq,
                salve_store::PatchStatus::Rejected,
                Some(reason),
            )?;
        }
        Ok(())
    }

    /// End the run.
    pub fn finish(mut self, finish: &Finish) -> Result<String, StoreError> {
        self.store.finish_run(&self.run, finish)?;
        Ok(self.run)
    }

    /// End the run as stopped by the user (Ctrl-C) before it changed anything.
    pub fn interrupted(self, message: &str) -> Result<String, StoreError> {
        self.finish(&Finish {
            status: status::INTERRUPTED.to_owned(),
            message: Some(message.to_owned()),
            ..Finish::default()
        })
    }

    /// End the run with the error that stopped the job.
    pub fn fail(self, message: &str) -> Result<String, StoreError> {
        self.finish(&Finish {
            status: status::ERROR.to_owned(),
            message: Some(message.to_owned()),
            ..Finish::default()
        })
    }
}

/// How an apply-like run ends: its status and refusal reason come from its report.
fn report_finish(report: &Report, baseline: Option<&str>, checkpoint: Option<&str>) -> Finish {
    Finish {
        status: report::run_status(report).to_owned(),
        message: report::refusal_reason(report),
        baseline: baseline.map(str::to_owned),
        checkpoint: checkpoint.map(str::to_owned),
        budgets: None,
    }
}

/// An apply report as rows and artifacts, owned until they are written.
struct AppliedRows {
    report_name: String,
    diff_name: String,
    report_json: String,
    patch_sets: Vec<salve_store::PatchSet>,
    decisions: Vec<salve_store::Decision>,
}

impl AppliedRows {
    /// The batch writing these rows; `diff` is kept only when not empty.
    fn batch<'a>(&'a self, diff: &'a str) -> Batch<'a> {
        let mut artifacts = vec![(self.report_name.as_str(), self.report_json.as_bytes())];
        if !diff.is_empty() {
            artifacts.push((self.diff_name.as_str(), diff.as_bytes()));
        }
        Batch {
            artifacts,
            patch_sets: self.patch_sets.clone(),
            attempts: Vec::new(),
            decisions: self.decisions.clone(),
        }
    }
}

/// Runs a rewind marked rewound come back when the checkpoint that rewind took (`commit`) is
/// restored: unmark them, and say which. Nothing happens where no record is kept; a record
/// that cannot be written is left as it is (the restore itself stands).
pub(crate) fn bring_back(dir: &std::path::Path, commit: &str) -> Vec<String> {
    match salve_store::Store::open_existing(dir) {
        Ok(Some(mut store)) => store.unmark_rewound(commit).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Keep the record's database connections open between runs for the rest of this process (a
/// long-lived server writes a run per request; reopening costs as much as a small write).
pub fn keep_record_open() {
    salve_store::keep_connections_open();
}
