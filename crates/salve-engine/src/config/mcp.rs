//! `[mcp]`: what `salve mcp` lets an agent run.
//!
//! ```toml
//! [mcp]
//! # The checks `run_check` may run, each a program and its arguments (no shell). The first is
//! # the one run when the agent names none. A string is split on whitespace.
//! allowed_checks = [["cargo", "test"], ["cargo", "clippy", "--all-targets"], "make check"]
//! # The time limit of a check, and the most an agent may ask for (seconds).
//! check_timeout_secs = 600
//! ```
//!
//! A command is allowed only when it equals one of the list, argument for argument: an
//! allowed `cargo test` does not allow `cargo test --config ...`.

use std::time::Duration;

use serde::Serialize;
use toml::Value;

use super::ConfigError;

/// The default time limit of a `run_check`: 10 minutes.
pub const DEFAULT_CHECK_TIMEOUT_SECS: u64 = 600;

/// The `[mcp]` section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct McpConfig {
    /// The commands `run_check` may run, in the order configured; the first is the default.
    pub allowed_checks: Vec<Vec<String>>,
    /// The time limit of a check, and the most a caller may ask for.
    pub check_timeout_secs: u64,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            allowed_checks: Vec::new(),
            check_timeout_secs: DEFAULT_CHECK_TIMEOUT_SECS,
        }
    }
}

impl McpConfig {
    /// Whether `command` is one of [`McpConfig::allowed_checks`], argument for argument.
    pub fn allows(&self, command: &[String]) -> bool {
        self.allowed_checks.iter().any(|c| c.as_slice() == command)
    }

    /// [`McpConfig::check_timeout_secs`] as a duration.
    pub fn check_timeout(&self) -> Duration {
        Duration::from_secs(self.check_timeout_secs)
    }
}

/// Read the merged `[mcp]` table; unknown keys become warnings.
pub(super) fn read(value: &Value, warnings: &mut Vec<String>) -> Result<McpConfig, ConfigError> {
    let table = super::as_table(value, "mcp")?;
    let mut mcp = McpConfig::default();
    for (key, value) in table {
        match key.as_str() {
            "allowed_checks" => mcp.allowed_checks = checks(value)?,
            "check_timeout_secs" => {
                mcp.check_timeout_secs = super::as_u64(value, "mcp.check_timeout_secs")?;
                if mcp.check_timeout_secs == 0 {
                    return Err(invalid("`mcp.check_timeout_secs` must be at least 1"));
                }
            }
            _ => warnings.push(format!("[mcp] {key} is ignored")),
        }
    }
    Ok(mcp)
}

fn checks(value: &Value) -> Result<Vec<Vec<String>>, ConfigError> {
    let list = value.as_array().ok_or_else(|| {
        invalid("`mcp.allowed_checks` must be a list of commands (`[[\"cargo\", \"test\"]]`)")
    })?;
    list.iter()
        .map(|entry| {
            let argv: Option<Vec<String>> = match entry {
                Value::String(s) => Some(s.split_whitespace().map(str::to_owned).collect()),
                Value::Array(words) => words
                    .iter()
                    .map(|w| w.as_str().map(str::to_owned))
                    .collect(),
                _ => None,
            };
            argv.filter(|a| !a.is_empty()).ok_or_else(|| {
                invalid(
                    "each of `mcp.allowed_checks` must be a non-empty list of strings (program \
                     and arguments) or a command string",
                )
            })
        })
        .collect()
}

fn invalid(message: &str) -> ConfigError {
    ConfigError::Invalid {
        message: message.to_owned(),
    }
}
