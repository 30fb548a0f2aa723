//! The restore a page can offer to take back: the newest change of the work tree, when that
//! change is a restore (a checkpoint brought back, or a rewind to a run). Read from the
//! operation log, so it holds across reloads and processes, and it is gone as soon as anything
//! else changes the tree (a later apply, the undo itself).

use std::path::Path;

use serde::Serialize;

use super::{restore_before, Error, Options, Outcome};

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
    // Checked under the write lock, so no other change can land between the check and the
    // restore that takes the named one back.
    let _lock = crate::lock::acquire(&repo.root, crate::lock::DEFAULT_WAIT)
        .map_err(crate::restore::Error::Lock)?;
    let last = salve_git::oplog::last(&repo)?;
    let named = before.len() >= 7 && before.bytes().all(|b| b.is_ascii_hexdigit());
    // A restore wrote whole files of any size it found in its checkpoint: read them back as
    // far as the default apply limit allows, or further when asked.
    let read_limit = options
        .max_file_size
        .max(crate::apply::DEFAULT_MAX_FILE_SIZE);
    match last {
        Some(op) if named && op.kind == RESTORE && op.before.starts_with(&before) => {
            // A restore wrote no recorded diff: no chain to read the files from.
            restore_before(&repo, &op, None, &[], options, read_limit)
        }
        _ => Err(Error::NothingToUndo(format!(
            "the restore that took checkpoint {before} is no longer the last change of this \
             work tree, so it is not undone; nothing was changed"
        ))),
    }
}
