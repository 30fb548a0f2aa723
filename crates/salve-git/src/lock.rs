//! Waiting for the user's `index.lock`.
//!
//! A lock file means some git process is writing the index right now (an editor's git
//! integration, a prompt, a hook). salve waits a little and retries; if the lock stays, it fails
//! and names the file. It never deletes a lock: only its owner knows whether it is stale.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cmd::GitError;

/// How long operations that write the user's index wait for a lock by default.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(2);

const POLL: Duration = Duration::from_millis(50);

/// Run `op` (which writes the index at `index`) once the lock is free, retrying while git reports
/// the lock as taken, for at most `wait`. Fails with [`GitError::IndexLocked`] naming the lock.
pub(crate) fn with_index_lock<T>(
    index: &Path,
    wait: Duration,
    mut op: impl FnMut() -> Result<T, GitError>,
) -> Result<T, GitError> {
    let lock = lock_path(index);
    let deadline = Instant::now() + wait;
    loop {
        if lock.exists() {
            if Instant::now() >= deadline {
                return Err(GitError::IndexLocked(lock));
            }
            std::thread::sleep(POLL);
            continue;
        }
        match op() {
            Err(e) if e.is_index_lock_conflict() => {
                if Instant::now() >= deadline {
                    return Err(GitError::IndexLocked(lock));
                }
                std::thread::sleep(POLL);
            }
            other => return other,
        }
    }
}

/// Wait until nobody holds the lock of `index`, for at most `wait`. Operations that must not stop
/// halfway (a restore writing files, then the index) check this before their first write.
pub(crate) fn wait_until_unlocked(index: &Path, wait: Duration) -> Result<(), GitError> {
    with_index_lock(index, wait, || Ok(()))
}

pub(crate) fn lock_path(index: &Path) -> PathBuf {
    let mut lock = index.as_os_str().to_os_string();
    lock.push(".lock");
    PathBuf::from(lock)
}
