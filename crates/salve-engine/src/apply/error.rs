//! Errors that stop an apply before any file is judged: bad arguments, an unreadable directory,
//! an unknown base revision, a file too large to hold, a failed write. A refused edit is not an
//! error; it is a [`Report`](salve_patch::Report) with outcome `refused`.

use std::io;
use std::path::PathBuf;

use salve_git::GitError;

use crate::baseline::BaselineError;
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
}

impl Error {
    /// A line telling the user what to do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Dir { .. } => Some("check the directory given with -C".to_owned()),
            Error::Baseline(BaselineError::UnknownRevision(_)) => Some(
                "--base takes the commit the model read: a hash, branch, tag or HEAD~N".to_owned(),
            ),
            Error::Baseline(BaselineError::NoRepository { .. }) => {
                Some("drop --base, or run salve inside the git repository".to_owned())
            }
            Error::FileTooLarge { .. } => {
                Some("raise the limit with --max-file-size if this file is meant to be edited".to_owned())
            }
            Error::Write(e) if !e.rolled_back => Some(
                "compare the files with `git status` / `git diff`; `salve undo` restores the checkpoint taken before writing".to_owned(),
            ),
            Error::Git(GitError::NotFound) => Some("install git 2.30 or newer".to_owned()),
            _ => None,
        }
    }

    /// True when the error comes from the user's input (arguments, reply, tree contents) rather
    /// than from the environment (I/O, git itself).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::Dir { .. }
                | Error::Baseline(BaselineError::UnknownRevision(_))
                | Error::Baseline(BaselineError::NoRepository { .. })
                | Error::FileTooLarge { .. }
        )
    }
}
