//! A test that cannot run on this machine (a program or the shared corpus is missing) says so
//! where `cargo test` shows it, and notes it for `.ci/run`'s summary. Under `CI=true` it fails
//! instead: CI installs every program the tests drive and has the corpus beside the clone, so
//! a missing one there is a broken setup, and a gate that silently did not run must not pass.
//!
//! libtest captures what `print!`/`eprint!` write from a passing test, so a skip note written
//! that way is never seen. This writes to the process's stderr directly, which is not captured,
//! and appends the same line to `test-skips.log` in the target's temporary folder.

use std::io::Write as _;

/// Say that `test` did not run, and why; under `CI=true`, fail.
pub fn skip(test: &str, reason: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("{test} cannot run: {reason}; under CI=true a missing tool or corpus fails the run");
    }
    let line = format!("SKIPPED {test}: {reason}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    let log = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("test-skips.log");
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        let _ = file.write_all(line.as_bytes());
    }
}
