//! Crash-test hooks: let a test kill `salve` in the middle of a commit.
//!
//! The promise of a transaction under a hard kill is weaker than under an error (no rollback
//! can run), but still precise: every file is either its old or its new content, never half
//! written, and nothing left behind confuses the user. That promise can only be tested by
//! killing a real process at a known point between file writes, which no outside timing can
//! hit reliably. So the commit path calls these hooks at its step boundaries.
//!
//! They are compiled into every build, so the binary under test is the binary users run, and
//! they are inert unless their environment variable is set to a number; an unset, empty or
//! non-numeric variable changes nothing. A "write" is one file put in place: a replacement or
//! creation renamed into place, or a deletion.
//!
//! - [`ABORT_AFTER_WRITES`]`=N`: once N writes are done, abort the process at once
//!   (`std::process::abort`: no destructors, no rollback, as a kill). `0` aborts after every
//!   temporary file was written and before the first write.
//! - [`ABORT_BEFORE_RENAME`]`=N`: after N writes, when the next file's temporary file is
//!   written and its original kept, abort just before it is renamed into place.
//! - [`PAUSE_AFTER_WRITES`]`=N`: once N writes are done, print [`PAUSE_MARKER`] and the count
//!   on stderr, then sleep (at most [`PAUSE_LIMIT`], then carry on), so a test can send a real
//!   `SIGKILL` at that point.

use std::time::Duration;

/// Abort once this many writes are done.
pub const ABORT_AFTER_WRITES: &str = "SALVE_TEST_ABORT_AFTER_WRITES";
/// Abort just before the write that follows this many.
pub const ABORT_BEFORE_RENAME: &str = "SALVE_TEST_ABORT_BEFORE_RENAME";
/// Pause once this many writes are done.
pub const PAUSE_AFTER_WRITES: &str = "SALVE_TEST_PAUSE_AFTER_WRITES";
/// Printed on stderr (followed by the number of writes done) when a pause begins.
pub const PAUSE_MARKER: &str = "salve test hook: paused after writes:";
/// Printed on stderr (followed by the number of writes done) just before an abort.
pub const ABORT_MARKER: &str = "salve test hook: aborting after writes:";
/// How long a pause lasts when nobody kills the process; long enough for any test machine,
/// short enough that a forgotten process goes on by itself.
pub const PAUSE_LIMIT: Duration = Duration::from_secs(60);

/// The hooks one commit runs, read from the environment once.
#[derive(Debug, Default)]
pub(super) struct Hooks {
    abort_after: Option<usize>,
    abort_before: Option<usize>,
    pause_after: Option<usize>,
}

impl Hooks {
    pub(super) fn from_env() -> Hooks {
        let read = |name: &str| std::env::var(name).ok()?.trim().parse::<usize>().ok();
        Hooks {
            abort_after: read(ABORT_AFTER_WRITES),
            abort_before: read(ABORT_BEFORE_RENAME),
            pause_after: read(PAUSE_AFTER_WRITES),
        }
    }

    /// Called when `done` writes are complete (also once with 0 before the first).
    pub(super) fn after_writes(&self, done: usize) {
        if self.pause_after == Some(done) {
            eprintln!("{PAUSE_MARKER} {done}");
            // Until killed, interrupted (Ctrl-C), or the limit.
            let start = std::time::Instant::now();
            while start.elapsed() < PAUSE_LIMIT && !crate::interrupt::requested() {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if self.abort_after == Some(done) {
            abort(done);
        }
    }

    /// Called when write number `done + 1` is ready and about to be put in place.
    pub(super) fn before_write(&self, done: usize) {
        if self.abort_before == Some(done) {
            abort(done);
        }
    }
}

fn abort(done: usize) -> ! {
    eprintln!("{ABORT_MARKER} {done}");
    std::process::abort()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_hooks_are_inert() {
        let hooks = Hooks::default();
        // Would abort or pause the test process if any were armed.
        for n in 0..4 {
            hooks.after_writes(n);
            hooks.before_write(n);
        }
        assert!(hooks.abort_after.is_none() && hooks.pause_after.is_none());
    }
}
