//! `rewind`: bring the work tree back to just before a recorded run (`salve restore --to-run`,
//! the page's "Restore to here").
//!
//! It restores the checkpoint the run took before writing, through [`restore`], so the present
//! is checkpointed first and the rewind is undoable like any restore. The run and every later
//! run are then marked rewound in the record: never deleted, and brought back unmarked when the
//! checkpoint the rewind took is restored (by `salve undo`, `salve restore ID` or "Undo
//! restore"). [`preview`] lists what a rewind would change, without changing anything, for a
//! confirmation.

use std::path::PathBuf;

use salve_git::checkpoint::{create as git_create, find, FindError};
use salve_git::{path_from_bytes, split_nul, GitError, Repo};
use salve_store::{Store, StoreError};
use serde::Serialize;

use crate::checkpoint::{limits, show, DEFAULT_MAX_UNTRACKED_FILE};
use crate::error::{Classified, Kind};
use crate::restore;

/// Which run to rewind to, where.
#[derive(Clone, Debug)]
pub struct Options {
    /// A directory inside the work tree.
    pub dir: PathBuf,
    /// The run's id or a unique prefix of it.
    pub run: String,
    /// Untracked files larger than this are left out of the checkpoint taken first.
    pub max_file_size: u64,
}

impl Options {
    /// Rewind the work tree at `dir` to just before `run`, with the default limits.
    pub fn new(dir: impl Into<PathBuf>, run: impl Into<String>) -> Options {
        Options {
            dir: dir.into(),
            run: run.into(),
            max_file_size: DEFAULT_MAX_UNTRACKED_FILE,
        }
    }
}

/// What a rewind did. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The restore of the run's checkpoint (`before` undoes it).
    pub restore: restore::Outcome,
    /// The runs marked rewound, oldest first (the run itself and the later ones).
    pub rewound: Vec<String>,
    /// The full id of the run rewound to.
    pub run: String,
}

/// What a rewind would change. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Preview {
    /// The checkpoint that would be restored.
    pub checkpoint: String,
    /// The files that would be deleted (there now, not in the checkpoint), a subset of `files`.
    pub deleted: Vec<String>,
    /// The files that would be written or deleted, relative to the work tree.
    pub files: Vec<String>,
    /// The full id of the run.
    pub run: String,
    /// The runs that would be marked rewound, oldest first.
    pub runs: Vec<String>,
    /// Of `deleted`, the files git does not track: created since, by the user or a later run,
    /// and kept by no commit (only by the checkpoint the rewind takes first).
    pub untracked: Vec<String>,
}

/// Why a rewind did not happen.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The record: no such run, an ambiguous prefix, a broken database.
    #[error(transparent)]
    Record(#[from] StoreError),
    /// The run took no checkpoint (it wrote nothing, or ran outside git).
    #[error("run {0} has no checkpoint to restore")]
    NoCheckpoint(String),
    /// The run's checkpoint was dropped: its files may linger in git until garbage collection,
    /// but a dropped checkpoint is never restored behind the user's back.
    #[error(
        "the checkpoint run {run} took ({checkpoint}) was dropped, so there is nothing to restore"
    )]
    Dropped { run: String, checkpoint: String },
    /// The restore itself refused or failed.
    #[error(transparent)]
    Restore(#[from] restore::Error),
    /// Reading the repository for a preview.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The run's checkpoint is gone.
    #[error(transparent)]
    Find(#[from] FindError),
}

impl From<git_create::Error> for Error {
    fn from(e: git_create::Error) -> Error {
        let git_create::Error::Git(e) = e;
        Error::Git(e)
    }
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Record(e) => e.kind(),
            Error::NoCheckpoint(_)
            | Error::Dropped { .. }
            | Error::Find(FindError::NotFound(_)) => Kind::Refused,
            Error::Find(FindError::Ambiguous { .. }) => Kind::User,
            Error::Find(FindError::Git(e)) | Error::Git(e) => e.kind(),
            Error::Restore(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Record(e) => e.code(),
            Error::NoCheckpoint(_) => "no_checkpoint",
            Error::Dropped { .. } => "checkpoint_dropped",
            Error::Find(FindError::NotFound(_)) => "no_such_checkpoint",
            Error::Find(FindError::Ambiguous { .. }) => "ambiguous_checkpoint",
            Error::Find(FindError::Git(e)) | Error::Git(e) => e.code(),
            Error::Restore(e) => e.code(),
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::Record(e) => e.hint(),
            Error::NoCheckpoint(_) => Some(
                "only runs that wrote files in a git repository took a checkpoint; pick an \
                 earlier run, or restore a checkpoint from the checkpoint list"
                    .to_owned(),
            ),
            Error::Dropped { .. } => Some(
                "pick a later run whose checkpoint is kept, or restore a checkpoint from the \
                 checkpoint list"
                    .to_owned(),
            ),
            Error::Find(FindError::NotFound(_)) => Some(
                "the run's checkpoint was dropped; the checkpoint list shows those kept".to_owned(),
            ),
            Error::Find(FindError::Git(e)) | Error::Git(e) => e.hint(),
            Error::Find(_) => Some("the checkpoint list shows the ids".to_owned()),
            Error::Restore(e) => e.hint(),
        }
    }
}

/// The run `options.run` names, with its checkpoint, and the store it is kept in.
fn run_checkpoint(options: &Options) -> Result<(Store, String, String), Error> {
    let store = Store::open_existing(&options.dir)?
        .ok_or_else(|| StoreError::NoSuchRun(options.run.clone()))?;
    let id = store.resolve(&options.run)?;
    let run = store.record(&id)?.run;
    let checkpoint = run
        .checkpoint
        .filter(|c| !c.is_empty())
        .ok_or_else(|| Error::NoCheckpoint(id.clone()))?;
    let kept = crate::checkpoint::kept(&options.dir).map_err(|e| match e {
        crate::checkpoint::Error::Git(e) | crate::checkpoint::Error::Find(FindError::Git(e)) => {
            Error::Git(e)
        }
        crate::checkpoint::Error::Find(e) => Error::Find(e),
    })?;
    if !kept.holds(&checkpoint) {
        return Err(Error::Dropped {
            run: id,
            checkpoint,
        });
    }
    Ok((store, id, checkpoint))
}

/// Restore the work tree to just before `options.run`; see the module docs.
pub fn rewind(options: &Options) -> Result<Outcome, Error> {
    let (mut store, id, checkpoint) = run_checkpoint(options)?;
    let restored = restore::restore(&restore::Options {
        max_file_size: options.max_file_size,
        ..restore::Options::new(&options.dir, &checkpoint)
    })?;
    let rewound = store.mark_rewound(&id, &restored.before_checkpoint.commit)?;
    Ok(Outcome {
        restore: restored,
        rewound,
        run: id,
    })
}

/// What [`rewind`] would change now; writes nothing but unreferenced git objects.
pub fn preview(options: &Options) -> Result<Preview, Error> {
    let (store, id, checkpoint) = run_checkpoint(options)?;
    let repo = Repo::discover(&options.dir)?;
    let target = find(&repo, &checkpoint)?;
    // The catalog keeps the checkpoint's tree alive; its own commit may already be pruned.
    let target_tree = target.tree.clone();
    let now = git_create::snapshot(
        &repo,
        &git_create::Options {
            limits: limits(options.max_file_size),
            ..git_create::Options::default()
        },
    )?;
    // diff-tree reads the snapshot's trees: write them (still unnamed) first.
    now.write_objects(&repo)?;
    let changed = repo
        .git()
        .args(["diff-tree", "-r", "-z", "--name-status", "--no-renames"])
        .args([now.tree(), target_tree.as_str()])
        .run_bytes()?;
    let (mut files, mut deleted) = (Vec::new(), Vec::new());
    let mut fields = split_nul(&changed).filter(|p| !p.is_empty());
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        let path = show(&path_from_bytes(path));
        if status == b"D" {
            deleted.push(path.clone());
        }
        files.push(path);
    }
    let untracked = untracked_among(&repo, &deleted)?;
    Ok(Preview {
        checkpoint: target.id,
        deleted,
        files,
        runs: store.runs_from(&id)?,
        run: id,
        untracked,
    })
}

/// Which of `paths` git does not track (in neither HEAD nor the index).
fn untracked_among(repo: &Repo, paths: &[String]) -> Result<Vec<String>, Error> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let tracked = repo
        .git()
        .args(["ls-files", "-z", "--cached", "--"])
        .args(paths.iter().map(|p| format!(":(literal){p}")))
        .run_bytes()?;
    let tracked: Vec<String> = split_nul(&tracked)
        .filter(|p| !p.is_empty())
        .map(|p| show(&path_from_bytes(p)))
        .collect();
    Ok(paths
        .iter()
        .filter(|p| !tracked.contains(p))
        .cloned()
        .collect())
}
