//! `salve fix -- CMD` (DESIGN.md §6): run a check, classify its failures, repair them by rules
//! or a model, verify, and stop honestly.
//!
//! Looking at a check, before any model is asked; the loop, the MCP server's `run_check` and any
//! front end use these in this order:
//!
//! | step | call | gives |
//! |---|---|---|
//! | run | [`check::run`] with [`check::CheckOptions`] | a [`check::CheckResult`]: status, duration, capped output, full log |
//! | read | [`failures::extract`] | [`failures::Failure`]s: file, line, column, message, kind, tool, code |
//! | decide | [`classify::classify`] | a [`classify::Classification`]: environment or code, why, worth a re-run |
//! | prompt | [`failures::excerpt`] | a numbered excerpt of a failing file around the error |
//! | compare | [`failures::signature`] | a fingerprint; the same one twice means no progress |
//!
//! ```no_run
//! use salve_engine::fix::{check, classify, failures};
//!
//! let command: Vec<String> = ["cargo", "build"].map(String::from).to_vec();
//! // Exact spans from cargo's JSON diagnostics.
//! let command = failures::with_message_format_json(&command).unwrap_or(command);
//! let result = check::run(&check::CheckOptions::new(".", command.clone())).unwrap();
//! if !result.passed() {
//!     let found = failures::extract(&command, &result);
//!     let verdict = classify::classify(&result, &found);
//!     println!("{:?}: {} ({} failures)", verdict.class, verdict.reason, found.len());
//! }
//! ```
//!
//! Judging and remembering repairs:
//!
//! - [`guard`]: refuses repairs that make the check pass by weakening it.
//! - [`budget`]: attempt and environment re-run budgets persisted per branch and failure.
//! - [`rules`]: repairs learned from earlier runs (the store) or pinned in the repository.
//! - [`strictness`]: what the loop may do on its own at each level.

pub mod budget;
pub mod check;
pub mod classify;
pub mod failures;
pub mod guard;
pub mod judge;
pub mod rules;
mod run;
pub mod strictness;

pub use run::{
    fix, AttemptReport, CheckSummary, Error, Event, Options, Outcome, Source, Status, Verdict,
    DEFAULT_CONFIDENCE_GATE,
};
