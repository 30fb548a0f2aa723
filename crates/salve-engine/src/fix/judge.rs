//! Run a check and read it, in one call: the result, the failures read from its output, their
//! class (environment or code) and their signature. The fix loop judges every check run this
//! way, and so does the MCP server's `run_check`, so both say the same of the same output.

use super::check::{self, CheckError, CheckOptions, CheckResult};
use super::classify::{classify_in, Classification};
use super::failures::{self, Failure};

/// A check run and read.
#[derive(Clone, Debug)]
pub struct Judged {
    pub result: CheckResult,
    /// The failures read from the output; empty when the check passed.
    pub failures: Vec<Failure>,
    /// Environment or code, and why; `None` when the check passed.
    pub class: Option<Classification>,
    /// What identifies these failures across runs (budgets, progress).
    pub signature: String,
}

impl Judged {
    pub fn passed(&self) -> bool {
        self.result.passed()
    }
}

/// Run the check `options` describes, then read and classify its failures.
pub fn judge(options: &CheckOptions) -> Result<Judged, CheckError> {
    let result = check::run(options)?;
    Ok(read(&options.dir, &options.command, result))
}

/// Read and classify the failures of a check `command` that ran in `dir` to `result`.
pub fn read(dir: &std::path::Path, command: &[String], result: CheckResult) -> Judged {
    let failures = if result.passed() {
        Vec::new()
    } else {
        failures::extract(command, &result)
    };
    let class = (!result.passed()).then(|| classify_in(dir, &result, &failures));
    // Failures no reader understood are told apart by their output, not all by one key.
    let signature = if failures.is_empty() && !result.passed() {
        failures::output_signature(&result.log_text(), &result.status.to_string())
    } else {
        failures::signature(&failures)
    };
    Judged {
        result,
        failures,
        class,
        signature,
    }
}
