//! Integration tests of salve-llm with real transports: fixture programs run as child
//! processes, a scripted HTTP server on 127.0.0.1, cassettes on disk, and (when installed) the
//! real agent CLIs.

// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_clis;
mod chain;
mod command;
mod http;
mod replay;
mod rundir;
mod server;
#[path = "../../../../tests/support/skip.rs"]
mod skip;
mod stall;

use std::path::PathBuf;

/// A fixture script's path.
pub fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `sh FIXTURE ARGS...` as a command line.
pub fn sh(name: &str, args: &[&str]) -> Vec<String> {
    let mut argv = vec!["sh".to_owned(), fixture(name)];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    argv
}

/// True when no process with this pid is left (gone, or a zombie waiting for its reaper).
pub fn pid_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
    }
}
