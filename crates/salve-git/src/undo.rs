//! Undo the most recent salve change of this work tree.
//!
//! Every salve change (an apply, a restore, an undo) logs the checkpoint taken just before it.
//! Undo restores that checkpoint, and the restore logs itself, so a second undo restores the
//! state the first undo replaced: undo of undo is redo, as in jj.

use crate::checkpoint;
use crate::cmd::GitError;
use crate::oplog::{self, Operation};
use crate::repo::Repo;
use crate::restore;

#[derive(Clone, Debug)]
pub struct Options {
    /// Options of the restore undo performs; its `operation` is set to `undo`.
    pub restore: restore::Options,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            restore: restore::Options {
                operation: oplog::UNDO_RESTORE.to_owned(),
                ..restore::Options::default()
            },
        }
    }
}

#[derive(Clone, Debug)]
pub struct Outcome {
    /// The operation that was undone.
    pub undone: Operation,
    pub restore: restore::Outcome,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("nothing to undo: no salve change has been recorded in this work tree")]
    NothingToUndo,
    #[error(
        "the checkpoint taken before the last {kind} ({commit}) no longer exists; it was dropped \
         and garbage-collected"
    )]
    CheckpointGone { kind: String, commit: String },
    #[error(transparent)]
    Restore(#[from] restore::Error),
}

/// Restore the checkpoint taken before the most recent salve change; see the module docs.
pub fn undo(repo: &Repo, options: &Options) -> Result<Outcome, Error> {
    let undone = oplog::last(repo)?.ok_or(Error::NothingToUndo)?;
    undo_operation(repo, undone, options)
}

/// Restore the checkpoint taken before `undone`, a logged operation.
pub fn undo_operation(repo: &Repo, undone: Operation, options: &Options) -> Result<Outcome, Error> {
    let gone = || Error::CheckpointGone {
        kind: undone.kind.clone(),
        commit: undone.before.clone(),
    };
    let target = checkpoint::by_commit(repo, &undone.before)?.ok_or_else(gone)?;
    let mut restore_options = options.restore.clone();
    restore_options.operation = oplog::UNDO_RESTORE.to_owned();
    let restore = restore::restore_checkpoint(repo, &target, &restore_options)?;
    Ok(Outcome { undone, restore })
}
