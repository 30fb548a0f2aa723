//! Errors that stop an apply before any file is judged: bad arguments, an unreadable directory,
//! an unknown base revision, a file too large to hold, a failed write. A refused edit is not an
//! error; it is a [`Report`](salve_patch::Report) with outcome `refused`.

use std::io;
use std::path::PathBuf;

use salve_git::GitError;

use crate::baseline::BaselineError;
use crate::error::{Classified, Kind};
use crate::lock::LockError;
use crate::transaction::TransactionError;

/// Why an apply could not run, or could not finish writing.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot use {} as the work tree: {source}", path.display())]
    Dir {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    #[error("{path} is {size} bytes, over the limit of {limit} bytes for files salve edits")]
    FileTooLarge { path: String, size: u64, limit: u64 },
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("writing failed: {0}")]
    Write(#[from] TransactionError),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("could not take a checkpoint before writing (nothing was written): {0}")]
    Checkpoint(#[from] salve_git::checkpoint::create::Error),
    #[error(transparent)]
    Lock(#[from] LockError),
    /// Files the reply would overwrite that the checkpoint cannot hold, so undo could not bring
    /// them back; refused before writing.
    #[error(
        "nothing was written: the checkpoint taken before writing cannot hold {}, so undo \
         could not bring {} back",
        .0.join(", "),
        if .0.len() == 1 { "it" } else { "them" }
    )]
    NotCheckpointable(Vec<String>),
}

impl Error {
    /// Stopped by the user (Ctrl-C) before any file was replaced.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Error::Write(e) if e.is_interrupted() && e.rolled_back)
    }
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Dir { .. }
            | Error::Baseline(BaselineError::UnknownRevision(_))
            | Error::Baseline(BaselineError::NoRepository { .. })
            | Error::FileTooLarge { .. }
            | Error::Read { .. } => Kind::User,
            Error::NotCheckpointable(_) => Kind::Refused,
            Error::Baseline(BaselineError::Git(e)) | Error::Git(e) => e.kind(),
            Error::Write(e) if e.is_interrupted() && e.rolled_back => Kind::Interrupted,
            Error::Write(_) | Error::Checkpoint(_) => Kind::Environment,
            Error::Lock(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Dir { .. } => "bad_directory",
            Error::Baseline(BaselineError::UnknownRevision(_)) => "unknown_revision",
            Error::Baseline(BaselineError::NoRepository { .. }) => "no_repository",
            Error::Baseline(BaselineError::Git(e)) | Error::Git(e) => e.code(),
            Error::FileTooLarge { .. } => "file_too_large",
            Error::Read { .. } => "unreadable_file",
            Error::Write(e) if e.is_interrupted() => "interrupted",
            Error::Write(_) => "write_failed",
            Error::Checkpoint(_) => "checkpoint_failed",
            Error::NotCheckpointable(_) => "not_checkpointable",
            Error::Lock(e) => e.code(),
        }
    }

    fn hint(&self) -> Option<String> {
        let hint = match self {
            Error::Dir { .. } => "check the directory of the work tree",
            Error::Baseline(BaselineError::UnknownRevision(_)) => {
                "the base is the commit the model read: a hash, branch, tag or HEAD~N"
            }
            Error::Baseline(BaselineError::NoRepository { .. }) => {
                "a base needs a git repository: apply inside one, or name no base"
            }
            Error::FileTooLarge { .. } => {
                "raise the file size limit if this file is meant to be edited"
            }
            Error::Write(e) if e.is_interrupted() && e.rolled_back => {
                "stopped before any file was replaced: the files are as they were and nothing \
                 needs undoing; apply the reply again to write it"
            }
            Error::Write(e) if !e.rolled_back => {
                "compare the files with `git status` / `git diff`; undo restores the checkpoint \
                 taken before writing"
            }
            Error::Checkpoint(_) => {
                "fix the cause above (install git if it is missing), or write without a \
                 checkpoint only if the change can be undone another way"
            }
            Error::NotCheckpointable(_) => {
                "write without a checkpoint if undo is not needed for these files"
            }
            Error::Baseline(BaselineError::Git(e)) | Error::Git(e) => return e.hint(),
            Error::Lock(e) => return e.hint(),
            _ => return None,
        };
        Some(hint.to_owned())
    }
}
