//! One writer at a time: every operation that writes the work tree (apply, ask, restore, undo,
//! commit, and later fix and the MCP server's writes) holds this lock from before it reads the
//! files it will change until after it has written them. A second writer waits, bounded, then
//! reads the files fresh, so it places its edit on what the first one wrote: no lost update.
//!
//! The lock is an advisory OS file lock (`flock`), which the OS drops when its holder dies, so a
//! killed salve never leaves a stale lock. It lives in the repository's own git directory
//! (`.git/salve/write.lock`; a linked worktree's private git dir), or, outside git, in the
//! system's temporary directory under a name derived from the work tree's path.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Classified, Kind};

/// How long a writer waits for another one before giving up: 30 s.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The lock, held until dropped.
#[derive(Debug)]
pub struct WriteLock {
    _file: File,
    /// How long it took to get, when another writer held it first.
    pub waited: Option<Duration>,
}

/// Why the lock could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another salve held it for longer than the wait.
    #[error(
        "another salve command is writing in this work tree (lock {}); waited {:.0}s, nothing \
         was changed",
        path.display(),
        waited.as_secs_f64()
    )]
    Busy { path: PathBuf, waited: Duration },
    /// The lock file could not be opened.
    #[error("cannot open the write lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classified for LockError {
    fn kind(&self) -> Kind {
        Kind::Environment
    }

    fn code(&self) -> &'static str {
        match self {
            LockError::Busy { .. } => "busy",
            LockError::Io { .. } => "io",
        }
    }

    fn hint(&self) -> Option<String> {
        Some(match self {
            LockError::Busy { .. } => "retry when the other salve command has finished".to_owned(),
            LockError::Io { .. } => "check the permissions of the directory named above".to_owned(),
        })
    }
}

/// Take the write lock of the work tree containing `root` (a canonical directory), waiting at
/// most `wait` for another holder.
pub fn acquire(root: &Path, wait: Duration) -> Result<WriteLock, LockError> {
    let path = lock_path(root);
    let io = |source| LockError::Io {
        path: path.clone(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    let start = Instant::now();
    let mut waited = false;
    loop {
        match file.try_lock() {
            Ok(()) => {
                return Ok(WriteLock {
                    _file: file,
                    waited: waited.then(|| start.elapsed()),
                })
            }
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        if start.elapsed() >= wait {
            return Err(LockError::Busy {
                path,
                waited: start.elapsed(),
            });
        }
        waited = true;
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Where the lock of the work tree containing `root` lives; see the module docs.
fn lock_path(root: &Path) -> PathBuf {
    for dir in root.ancestors() {
        let dot_git = dir.join(".git");
        if dot_git.is_dir() {
            return dot_git.join("salve").join("write.lock");
        }
        if dot_git.is_file() {
            // A linked worktree: `.git` names its private git directory.
            if let Some(git_dir) = salve_git::linked_git_dir(&dot_git) {
                return git_dir.join("salve-write.lock");
            }
        }
    }
    let key = sha1_hex(root.to_string_lossy().as_bytes());
    std::env::temp_dir().join(format!("salve-write-{}.lock", &key[..16]))
}

fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Digest as _;
    sha1::Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_second_writer_waits_and_then_gets_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let root = dir.path().canonicalize().unwrap();
        let first = acquire(&root, DEFAULT_WAIT).unwrap();
        assert!(first.waited.is_none());
        assert!(root.join(".git/salve/write.lock").is_file());
        // Held: a short wait gives up, naming the lock.
        let err = acquire(&root, Duration::from_millis(50)).unwrap_err();
        assert_eq!(err.code(), "busy");
        assert!(err.to_string().contains("write.lock"), "{err}");
        // Released while the second one waits: it gets it, and says it waited.
        let second = std::thread::scope(|scope| {
            let waiter = scope.spawn(|| acquire(&root, DEFAULT_WAIT));
            std::thread::sleep(Duration::from_millis(100));
            drop(first);
            waiter.join().unwrap()
        })
        .unwrap();
        assert!(second.waited.is_some());
    }

    #[test]
    fn a_subdirectory_shares_the_repository_lock_and_plain_dirs_get_their_own() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(lock_path(&root.join("src/deep")), lock_path(&root));
        let plain = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        assert_ne!(lock_path(plain.path()), lock_path(other.path()));
        assert!(lock_path(plain.path()).starts_with(std::env::temp_dir()));
    }
}
