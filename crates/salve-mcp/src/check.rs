//! `run_check`: run an allowed check command with a time limit, then read its failures and
//! classify them with the engine's fix parts, as the fix loop does.

use std::time::Duration;

use rmcp::model::CallToolResult;
use salve_engine::fix::check::{self, CheckOptions};
use salve_engine::fix::classify::{Classification, FailureClass};
use salve_engine::fix::failures::Failure;
use salve_engine::fix::judge::{judge, Judged};
use salve_engine::interrupt::Cancel;
use serde::Serialize;

use crate::params::RunCheckParams;
use crate::result;
use crate::state::State;

/// Bytes of the check's output returned to the caller: head and tail, 16 KiB.
pub const OUTPUT_EXCERPT: usize = 16 << 10;
/// Failures listed in full; the count says how many there were.
pub const MAX_LISTED_FAILURES: usize = 50;

/// What `run_check` returns.
#[derive(Debug, Serialize)]
struct Checked<'a> {
    command: &'a [String],
    passed: bool,
    /// `{"kind": "exited", "code": 1}`, `{"kind": "timed_out"}`, ...
    status: &'a check::Status,
    duration_ms: u64,
    /// Environment or code, and why; absent when the check passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    classification: Option<Classification>,
    failure_count: usize,
    failures: &'a [Failure],
    /// The output's head and tail, with a `… N bytes cut …` line between them.
    output: &'a str,
    output_bytes: u64,
}

/// Run the check `params` asks for, when it is allowed.
pub fn run_check(state: &State, params: &RunCheckParams, cancel: &Cancel) -> CallToolResult {
    let command = match chosen(state, params.command.as_deref()) {
        Ok(command) => command,
        Err(refusal) => return refusal,
    };
    let limit = state.mcp.check_timeout();
    let timeout = params
        .timeout_secs
        .map(|s| Duration::from_secs(s.max(1)).min(limit))
        .unwrap_or(limit);
    let options = CheckOptions {
        timeout,
        output_cap: OUTPUT_EXCERPT,
        // The client's cancel of this request kills the check's tree, and only this one's.
        cancel: Some(cancel.flag()),
        ..CheckOptions::new(&state.dir, command.clone())
    };
    match judge(&options) {
        Ok(judged) => render(&command, judged),
        Err(e) => result::failed(&e),
    }
}

fn render(command: &[String], judged: Judged) -> CallToolResult {
    let done = &judged.result;
    let failures = &judged.failures;
    let listed = &failures[..failures.len().min(MAX_LISTED_FAILURES)];
    let summary = match &judged.class {
        None => format!("passed in {} ms", done.duration_ms),
        Some(c) => format!(
            "failed ({}): {} failure(s) read from the output, {} problem: {}",
            done.status,
            failures.len(),
            match c.class {
                FailureClass::Environment => "an environment",
                FailureClass::Code => "a code",
            },
            c.reason
        ),
    };
    let checked = Checked {
        command,
        passed: judged.passed(),
        status: &done.status,
        duration_ms: done.duration_ms,
        classification: judged.class.clone(),
        failure_count: failures.len(),
        failures: listed,
        output: &done.output,
        output_bytes: done.log_bytes,
    };
    // A failing check is the check's answer, not a failure of the tool.
    result::ok(summary, &checked)
}

/// The command to run: the one asked for when it is allowed, else the first configured.
fn chosen(state: &State, asked: Option<&[String]>) -> Result<Vec<String>, CallToolResult> {
    let allowed = &state.mcp.allowed_checks;
    match asked {
        Some([]) => Err(result::refused(
            "empty_check_command",
            "the command is empty",
            Some("name the program and its arguments, e.g. [\"cargo\", \"test\"]".to_owned()),
        )),
        Some(command) if state.allow_any_check || state.mcp.allows(command) => Ok(command.to_vec()),
        Some(command) => Err(result::refused(
            "check_not_allowed",
            &format!(
                "this server runs only the checks its configuration allows; {} is not one of them",
                serde_json::to_string(command).unwrap_or_default()
            ),
            Some(allowed_hint(state)),
        )),
        None => allowed.first().cloned().ok_or_else(|| {
            result::refused(
                "no_check_configured",
                "no command was given and none is configured",
                Some(allowed_hint(state)),
            )
        }),
    }
}

/// What the agent can do about a refused check. Which checks may run is the user's decision
/// alone, so the hint never suggests a way for the agent to allow one itself.
fn allowed_hint(state: &State) -> String {
    let allowed = &state.mcp.allowed_checks;
    if allowed.is_empty() && state.untrusted_checks {
        "no check is allowed: the repository's configuration lists checks, but the user has not \
         trusted that list; only the user can allow checks, so ask them, or go on without \
         running one"
            .to_owned()
    } else if allowed.is_empty() {
        "no check is allowed: only the user can allow checks, when they start this server; ask \
         them, or go on without running one"
            .to_owned()
    } else {
        format!(
            "the allowed checks are {}; omit the command to run the first",
            serde_json::to_string(allowed).unwrap_or_default()
        )
    }
}
