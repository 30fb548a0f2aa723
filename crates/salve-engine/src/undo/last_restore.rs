//! The restore a page can offer to take back: the newest change of the work tree, when that
//! change is a restore (a checkpoint brought back, or a rewind to a run). Read from the
//! operation log, so it holds across reloads and processes, and it is gone as soon as anything
//! else changes the tree (a later apply, the undo itself).

use std::path::Path;

use serde::Serialize;

use super::{undo_one, Error, Options, Outcome};

/// The kind the operation log gives a restore.
const RESTORE: &str = "restore";

/// A restore that is the newest change. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LastRestore {
    /// The checkpoint commit taken just before the restore: restoring it undoes the restore.
    pub before: String,
    /// The checkpoint commit the restore brought back.
    pub target: Option<String>,
    /// When it happened, in seconds since the Unix epoch.
    pub time: i64,
}

/// The newest change of the work tree at `dir` when it is a restore; `None` otherwise (no
/// change yet, or the newest is an apply, an undo, ...).
pub fn last_restore(dir: &Path) -> Result<Option<LastRestore>, Error> {
    let repo = salve_git::Repo::discover(dir)?;
    Ok(salve_git::oplog::last(&repo)?
        .filter(|op| op.kind == RESTORE)
        .map(|op| LastRestore {
            before: op.before,
            target: op.target,
            time: op.time,
        }))
}

/// Take back the restore that took checkpoint `before` (a commit or a prefix of one of at
/// least 7 digits), only while it is still the newest change: a restore followed by other work
/// is refused, changing nothing, since restoring its checkpoint would drop that work.
pub fn undo_restore(options: &Options, before: &str) -> Result<Outcome, Error> {
    let before = before.trim().to_ascii_lowercase();
    let repo = salve_git::Repo::discover(&options.dir)?;
    let last = salve_git::oplog::last(&repo)?;
    let named = before.len() >= 7 && before.bytes().all(|b| b.is_ascii_hexdigit());
    match last {
        Some(op) if named && op.kind == RESTORE && op.before.starts_with(&before) => {
            undo_one(&repo, &op, options)
        }
        _ => Err(Error::NothingToUndo(format!(
            "the restore that took checkpoint {before} is no longer the last change of this \
             work tree, so it is not undone; nothing was changed"
        ))),
    }
}
