//! `restore`: the whole-tree time machine. It brings a checkpoint's files and staged state back,
//! after checkpointing the present, so a restore can itself be undone. It deletes only files the
//! present snapshot has and the target lacks: never ignored files, never untracked files the
//! checkpoint skipped.

use std::path::PathBuf;

use salve_git::checkpoint::FindError;
use salve_git::{restore as git_restore, GitError, Repo};
use serde::Serialize;

use crate::checkpoint::{limits, show, Taken, DEFAULT_MAX_UNTRACKED_FILE};
use crate::error::{Classified, Kind};
use crate::lock::LockError;

/// Which checkpoint to restore, where.
#[derive(Clone, Debug)]
pub struct Options {
    /// A directory inside the work tree.
    pub dir: PathBuf,
    /// The checkpoint id, or a unique prefix.
    pub id: String,
    /// Untracked files larger than this are left out of the checkpoint taken first.
    pub max_file_size: u64,
    /// Restore a checkpoint taken in another worktree of the repository (its files are
    /// written into this one). Off by default: such a restore is refused.
    pub other_worktree: bool,
}

impl Options {
    /// Restore checkpoint `id` in the work tree at `dir`, with the default limits.
    pub fn new(dir: impl Into<PathBuf>, id: impl Into<String>) -> Options {
        Options {
            dir: dir.into(),
            id: id.into(),
            max_file_size: DEFAULT_MAX_UNTRACKED_FILE,
            other_worktree: false,
        }
    }
}

/// What a restore did. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The checkpoint of the state replaced: restoring it undoes this restore.
    pub before: String,
    /// Files no checkpoint held that were saved before being overwritten.
    pub captured: Vec<String>,
    /// Files deleted, relative to the work tree root.
    pub deleted: Vec<String>,
    /// True when HEAD has moved since the checkpoint (HEAD is never moved).
    pub head_differs: bool,
    /// False when the checkpoint recorded no staged state and the index was left alone.
    pub index_restored: bool,
    /// The checkpoint brought back.
    pub target: String,
    pub target_commit: String,
    /// Runs a rewind had marked rewound that this restore brought back (it restored the
    /// checkpoint that rewind took).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unrewound: Vec<String>,
    /// Files written.
    pub written: Vec<String>,
    /// The checkpoint taken first, with the paths it left out.
    #[serde(skip)]
    pub before_checkpoint: Taken,
}

impl From<git_restore::Outcome> for Outcome {
    fn from(o: git_restore::Outcome) -> Outcome {
        let paths = |v: &[PathBuf]| v.iter().map(|p| show(p)).collect();
        Outcome {
            target: o.target.id.clone(),
            target_commit: o.target.commit.clone(),
            before: o.before.id.clone(),
            written: paths(&o.written),
            deleted: paths(&o.deleted),
            captured: paths(&o.captured),
            index_restored: o.index_restored,
            head_differs: o.head_differs,
            before_checkpoint: Taken::from(&o.before),
            unrewound: Vec::new(),
        }
    }
}

/// Why a restore did not happen.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The restore itself refused or failed.
    #[error(transparent)]
    Restore(#[from] git_restore::Error),
    /// Another salve command kept the work tree.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The checkpoint was taken in another worktree; nothing was changed.
    #[error(
        "checkpoint {id} was taken in the worktree {worktree}, not in this one; restoring it \
         here would write that worktree's files into this one; nothing was changed"
    )]
    OtherWorktree { id: String, worktree: String },
}

impl From<GitError> for Error {
    fn from(e: GitError) -> Error {
        Error::Restore(git_restore::Error::Git(e))
    }
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        let e = match self {
            Error::Lock(e) => return e.kind(),
            Error::OtherWorktree { .. } => return Kind::Refused,
            Error::Restore(e) => e,
        };
        match e {
            git_restore::Error::Git(e) | git_restore::Error::Find(FindError::Git(e)) => e.kind(),
            git_restore::Error::Find(_) => Kind::User,
            git_restore::Error::Checkpoint(_) | git_restore::Error::Io { .. } => Kind::Environment,
            git_restore::Error::Blocked(_)
            | git_restore::Error::InProgress(_)
            | git_restore::Error::Unmerged => Kind::Refused,
        }
    }

    fn code(&self) -> &'static str {
        let e = match self {
            Error::Lock(e) => return e.code(),
            Error::OtherWorktree { .. } => return "other_worktree",
            Error::Restore(e) => e,
        };
        match e {
            git_restore::Error::Git(e) | git_restore::Error::Find(FindError::Git(e)) => e.code(),
            git_restore::Error::Find(FindError::NotFound(_)) => "no_such_checkpoint",
            git_restore::Error::Find(FindError::Ambiguous { .. }) => "ambiguous_checkpoint",
            git_restore::Error::Checkpoint(_) => "checkpoint_failed",
            git_restore::Error::Io { .. } => "io",
            git_restore::Error::Blocked(_) => "blocked",
            git_restore::Error::InProgress(_) | git_restore::Error::Unmerged => "in_progress",
        }
    }

    fn hint(&self) -> Option<String> {
        let e = match self {
            Error::Lock(e) => return e.hint(),
            Error::OtherWorktree { .. } => {
                return Some(
                    "restore it from that worktree, or confirm that this one should take its \
                     files"
                        .to_owned(),
                )
            }
            Error::Restore(e) => e,
        };
        let hint = match e {
            git_restore::Error::Git(e) | git_restore::Error::Find(FindError::Git(e)) => {
                return e.hint()
            }
            git_restore::Error::Find(_) => "the checkpoint list shows the ids",
            git_restore::Error::Blocked(_) => {
                "move, commit or delete the files named, then restore again; nothing was changed"
            }
            git_restore::Error::InProgress(_) | git_restore::Error::Unmerged => {
                "finish or abort it, then restore again; nothing was changed"
            }
            git_restore::Error::Checkpoint(_) | git_restore::Error::Io { .. } => {
                "check the files named above are readable and writable, then restore again"
            }
        };
        Some(hint.to_owned())
    }
}

/// Restore the checkpoint `options.id` names; see the module docs.
pub fn restore(options: &Options) -> Result<Outcome, Error> {
    let repo = Repo::discover(&options.dir)?;
    let _lock = crate::lock::acquire(&repo.root, crate::lock::DEFAULT_WAIT)?;
    let git_options = git_restore::Options {
        limits: limits(options.max_file_size),
        ..git_restore::Options::default()
    };
    let target =
        salve_git::checkpoint::find(&repo, &options.id).map_err(git_restore::Error::Find)?;
    if let Some(worktree) = target.worktree.as_deref() {
        if worktree != repo.root && !options.other_worktree {
            return Err(Error::OtherWorktree {
                id: target.id,
                worktree: show(worktree),
            });
        }
    }
    let mut outcome: Outcome =
        git_restore::restore_checkpoint(&repo, &target, &git_options)?.into();
    outcome.unrewound = crate::record::bring_back(&repo.root, &outcome.target_commit);
    Ok(outcome)
}
