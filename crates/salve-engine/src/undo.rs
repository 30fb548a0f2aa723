//! `undo`: take back the most recent salve change of this work tree by restoring the checkpoint
//! taken just before it. Undo is itself a change, so a second undo redoes.

use std::path::PathBuf;

use salve_git::{undo as git_undo, GitError, Repo};
use serde::Serialize;

use crate::checkpoint::{limits, DEFAULT_MAX_UNTRACKED_FILE};
use crate::error::{Classified, Kind};
use crate::restore;

/// Where to undo.
#[derive(Clone, Debug)]
pub struct Options {
    /// A directory inside the work tree.
    pub dir: PathBuf,
    /// Untracked files larger than this are left out of the checkpoint taken first.
    pub max_file_size: u64,
}

impl Options {
    /// Undo in the work tree at `dir`, with the default limits.
    pub fn new(dir: impl Into<PathBuf>) -> Options {
        Options {
            dir: dir.into(),
            max_file_size: DEFAULT_MAX_UNTRACKED_FILE,
        }
    }
}

/// The change undone. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Undone {
    /// The checkpoint commit taken just before it, now restored.
    pub checkpoint: String,
    /// `apply`, `ask`, `restore`, `undo`, ...
    pub kind: String,
    /// When it happened, in seconds since the Unix epoch.
    pub time: i64,
}

/// What an undo did. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub restore: restore::Outcome,
    pub undone: Undone,
}

/// Why an undo did not happen.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Restore(#[from] restore::Error),
    #[error("{0}")]
    NothingToUndo(String),
    #[error("{0}")]
    CheckpointGone(String),
}

impl From<git_undo::Error> for Error {
    fn from(e: git_undo::Error) -> Error {
        match e {
            git_undo::Error::Git(e) => Error::Git(e),
            git_undo::Error::Restore(e) => Error::Restore(restore::Error::Restore(e)),
            e @ git_undo::Error::NothingToUndo => Error::NothingToUndo(e.to_string()),
            e @ git_undo::Error::CheckpointGone { .. } => Error::CheckpointGone(e.to_string()),
        }
    }
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Git(e) => e.kind(),
            Error::Restore(e) => e.kind(),
            Error::NothingToUndo(_) | Error::CheckpointGone(_) => Kind::Refused,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Git(e) => e.code(),
            Error::Restore(e) => e.code(),
            Error::NothingToUndo(_) => "nothing_to_undo",
            Error::CheckpointGone(_) => "checkpoint_gone",
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::Git(e) => e.hint(),
            Error::Restore(e) => e.hint(),
            Error::NothingToUndo(_) => Some(
                "undo takes back changes salve made in this work tree (apply, ask, restore); \
                 the checkpoint list shows snapshots taken by hand"
                    .to_owned(),
            ),
            Error::CheckpointGone(_) => {
                Some("restore an older checkpoint from the checkpoint list".to_owned())
            }
        }
    }
}

/// Undo the most recent salve change; see the module docs.
pub fn undo(options: &Options) -> Result<Outcome, Error> {
    let repo = Repo::discover(&options.dir)?;
    let _lock = crate::lock::acquire(&repo.root, crate::lock::DEFAULT_WAIT)
        .map_err(restore::Error::Lock)?;
    let mut git_options = git_undo::Options::default();
    git_options.restore.limits = limits(options.max_file_size);
    let outcome = git_undo::undo(&repo, &git_options)?;
    Ok(Outcome {
        undone: Undone {
            kind: outcome.undone.kind,
            time: outcome.undone.time,
            checkpoint: outcome.undone.before,
        },
        restore: outcome.restore.into(),
    })
}
