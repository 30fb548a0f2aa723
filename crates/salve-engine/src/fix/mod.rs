//! The parts of `salve fix` that look at a check: run it, read its failures, and decide whose
//! failure it is before any model is asked. The loop, the MCP server's `run_check` and any
//! front end use them in this order:
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
//! Nothing here writes to the work tree or asks a model; the loop built on it does.

pub mod check;
pub mod classify;
pub mod failures;

mod capped;
mod process;
