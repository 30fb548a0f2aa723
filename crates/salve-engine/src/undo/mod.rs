//! `undo`: take back the most recent salve change of this work tree, and only it.
//!
//! An apply or an ask is undone by applying the diff it recorded in reverse, merged into the
//! files as they are now: later work in other files, or elsewhere in the same files, stays. When
//! the files changed since in a way that conflicts, the undo is refused and names them; `force`
//! falls back to restoring the checkpoint taken before the change (after checkpointing the
//! present, so that too can be undone). Other changes (a restore, an undo, a change without a
//! recorded diff) are undone by restoring their checkpoint. Undo is itself a change, so a second
//! undo redoes.

mod last_restore;
mod steps;

use std::path::PathBuf;

use salve_git::{undo as git_undo, GitError, Repo};
use serde::Serialize;

use crate::checkpoint::{limits, DEFAULT_MAX_UNTRACKED_FILE};
use crate::error::{Classified, Kind};
use crate::restore;

pub use last_restore::{last_restore, undo_restore, LastRestore};
pub use steps::{undo_steps, Steps, Stopped};

/// Where to undo.
#[derive(Clone, Debug)]
pub struct Options {
    /// A directory inside the work tree.
    pub dir: PathBuf,
    /// Untracked files larger than this are left out of the checkpoint taken first. Above the
    /// apply's default, it is also the limit for reading the files the undo reverts.
    pub max_file_size: u64,
    /// Restore the checkpoint even when the change could be reverted on its own (the whole tree
    /// goes back, later work included; it is checkpointed first).
    pub force: bool,
    /// Take back the newest of these changes alone, named by the checkpoints taken before them
    /// (a prefix is enough): one caller's own changes, as an MCP session's undo. `None` takes
    /// back the newest change of the work tree, whoever made it.
    pub only: Option<Vec<String>>,
}

impl Options {
    /// Undo in the work tree at `dir`, with the default limits.
    pub fn new(dir: impl Into<PathBuf>) -> Options {
        Options {
            dir: dir.into(),
            max_file_size: DEFAULT_MAX_UNTRACKED_FILE,
            force: false,
            only: None,
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
    /// Set when the change's own diff was reverted: the files written, and the checkpoint of
    /// the state replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverted: Option<Reverted>,
    /// Set when the checkpoint was restored instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore: Option<restore::Outcome>,
    pub undone: Undone,
}

/// A change reverted by its own diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reverted {
    /// The checkpoint taken before reverting: undoing this undo brings it back.
    pub checkpoint: Option<String>,
    /// True when the change was applied again (the undo took back an undo: a redo).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub redo: bool,
    /// The run whose diff was reverted.
    pub run: String,
    /// The files written, relative to the work tree.
    pub written: Vec<String>,
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
    /// The change's files changed since in a way that conflicts with reverting it.
    #[error(
        "the files of the last {kind} changed since in a way that conflicts with undoing it: {}; \
         nothing was changed",
        files.join(", ")
    )]
    Conflict { kind: String, files: Vec<String> },
    #[error(transparent)]
    Apply(#[from] crate::apply::Error),
    /// The checkpoint was restored, but files of the change are not as it holds them.
    #[error(
        "could not undo the last {kind}: {} not brought back: {}",
        if files.len() == 1 { "this file was" } else { "these files were" },
        files.join("; ")
    )]
    NotRestored { kind: String, files: Vec<String> },
    /// More steps were asked for than there are changes in place to take back.
    #[error(
        "{asked} steps of undo were asked for, but only {available} salve {} of this work \
         tree {} still in place; nothing was changed",
        if *available == 1 { "change" } else { "changes" },
        if *available == 1 { "is" } else { "are" }
    )]
    TooFewChanges { asked: usize, available: usize },
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
            Error::NothingToUndo(_)
            | Error::CheckpointGone(_)
            | Error::Conflict { .. }
            | Error::TooFewChanges { .. }
            | Error::NotRestored { .. } => Kind::Refused,
            Error::Apply(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Git(e) => e.code(),
            Error::Restore(e) => e.code(),
            Error::NothingToUndo(_) => "nothing_to_undo",
            Error::CheckpointGone(_) => "checkpoint_gone",
            Error::Conflict { .. } => "undo_conflict",
            Error::TooFewChanges { .. } => "too_few_changes",
            Error::NotRestored { .. } => "not_restored",
            Error::Apply(e) => e.code(),
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
            Error::Conflict { .. } => Some(
                "forcing the undo restores the whole tree as it was before the change \
                 (later work included, checkpointed first so it can be brought back)"
                    .to_owned(),
            ),
            Error::Apply(e) => e.hint(),
            Error::NotRestored { .. } => Some(
                "the rest of the checkpoint was restored and that restore is logged, so undoing \
                 again takes it back; a file inside another repository is undone there"
                    .to_owned(),
            ),
            Error::TooFewChanges { available, .. } => Some(format!(
                "ask for at most {available} steps; the record lists the changes"
            )),
        }
    }
}

/// Undo the most recent salve change; see the module docs.
pub fn undo(options: &Options) -> Result<Outcome, Error> {
    let repo = Repo::discover(&options.dir)?;
    let ops = salve_git::oplog::read(&repo)?;
    let last = match &options.only {
        None => ops
            .last()
            .ok_or_else(|| Error::NothingToUndo(git_undo::Error::NothingToUndo.to_string()))?,
        Some(mine) => ops
            .iter()
            .rev()
            .find(|op| {
                mine.iter()
                    .any(|id| !id.is_empty() && op.before.starts_with(id.as_str()))
            })
            .ok_or_else(|| {
                Error::NothingToUndo(
                    "nothing to undo: no change of this session is logged in this work tree"
                        .to_owned(),
                )
            })?,
    };
    undo_one(&repo, last, options)
}

impl Outcome {
    /// The checkpoint this undo took before it wrote: what names the undo itself, for a caller
    /// that keeps track of its own changes.
    pub fn checkpoint_taken(&self) -> Option<&str> {
        match (&self.reverted, &self.restore) {
            (Some(reverted), _) => reverted.checkpoint.as_deref(),
            (None, Some(restore)) => Some(&restore.before),
            (None, None) => None,
        }
    }
}

/// Take back `op`, a logged change: apply the opposite of what it did to the files as they are
/// now (an apply's recorded diff reversed; for an undo that reverted, the change it took back,
/// forward: a redo), or, without such a diff or under `force`, restore the checkpoint taken
/// before it.
fn undo_one(
    repo: &Repo,
    op: &salve_git::oplog::Operation,
    options: &Options,
) -> Result<Outcome, Error> {
    let ops = salve_git::oplog::read(repo)?;
    let (run, reverse) = match effect(repo, op, &ops) {
        Some((run, reverse)) => (Some(run), reverse),
        None => (None, true),
    };
    // The files the change wrote are read (and captured) up to the largest of the default
    // limit, the limit the change itself ran with, and the one given here: a file an apply was
    // allowed to write must not be too large to take back.
    let read_limit = [
        crate::apply::DEFAULT_MAX_FILE_SIZE,
        options.max_file_size,
        run.as_ref().and_then(|r| r.max_file_size).unwrap_or(0),
    ]
    .into_iter()
    .max()
    .unwrap_or(crate::apply::DEFAULT_MAX_FILE_SIZE);
    if let (Some(run), false) = (&run, options.force) {
        return revert(repo, op, run, (reverse, read_limit));
    }
    let _lock = crate::lock::acquire(&repo.root, crate::lock::DEFAULT_WAIT)
        .map_err(restore::Error::Lock)?;
    restore_before(repo, op, run.as_ref(), &ops, options, read_limit)
}

/// Take back `op` by restoring the checkpoint taken before it, the write lock already held.
fn restore_before(
    repo: &Repo,
    op: &salve_git::oplog::Operation,
    run: Option<&RecordedRun>,
    ops: &[salve_git::oplog::Operation],
    options: &Options,
    read_limit: u64,
) -> Result<Outcome, Error> {
    let mut git_options = git_undo::Options::default();
    git_options.restore.limits = limits(options.max_file_size);
    // A file an apply wrote was captured by its checkpoint up to the apply's own size limit:
    // the undo captures it as far, so that it too can be undone.
    git_options.restore.max_capture_bytes = Some(read_limit);
    // An ignored file the change wrote is brought back (or removed) like the others.
    // An undo that restored is taken back by restoring too: the files are those of the change
    // at the end of the chain.
    let touched = match run {
        Some(run) => diff_paths(&run.diff),
        None => chain_run(repo, op, ops)
            .map(|r| diff_paths(&r.diff))
            .unwrap_or_default(),
    };
    // Asking git may fail for a path it will not consider (inside a submodule): then none is.
    git_options.restore.ignored_paths =
        salve_git::checkpoint::private::ignored_among(repo, &touched).unwrap_or_default();
    let outcome = git_undo::undo_operation(repo, op.clone(), &git_options)?;
    // The files the change wrote must be back as the checkpoint holds them; an undo that
    // restored nothing it was asked to restore is a failure, whatever the restore counted.
    if let Some(run) = run {
        let asked = diff_paths(&run.diff);
        let missing = salve_git::restore::not_restored(repo, &outcome.restore.target, &asked)
            .map_err(restore::Error::Restore)?;
        if !missing.is_empty() {
            return Err(Error::NotRestored {
                kind: op.kind.clone(),
                files: missing
                    .iter()
                    .map(|m| format!("{} ({})", m.path.display(), m.why))
                    .collect(),
            });
        }
    }
    let mut restored: restore::Outcome = outcome.restore.into();
    restored.unrewound = crate::record::bring_back(&repo.root, &restored.target_commit);
    Ok(Outcome {
        undone: undone(&outcome.undone),
        restore: Some(restored),
        reverted: None,
    })
}

/// The files a unified diff changes (old and new names), relative to the work tree.
fn diff_paths(diff: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = diff
        .lines()
        .filter_map(|l| {
            l.strip_prefix("--- a/")
                .or_else(|| l.strip_prefix("+++ b/"))
        })
        .map(|p| PathBuf::from(p.trim_end_matches('\t')))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

fn undone(op: &salve_git::oplog::Operation) -> Undone {
    Undone {
        kind: op.kind.clone(),
        time: op.time,
        checkpoint: op.before.clone(),
    }
}

/// A recorded apply or ask, as undo needs it.
struct RecordedRun {
    id: String,
    /// The diff that landed.
    diff: String,
    /// The file size limit it ran with, when not the default.
    max_file_size: Option<u64>,
}

/// What `op` did, as a recorded diff and the direction that takes it back: an apply or ask's
/// own diff, reversed; for an undo that reverted a change, that change's diff, forward; and so
/// on down a chain of undos. `None` when the chain ends at a change without a recorded diff, or
/// at an undo that restored a checkpoint (those are taken back by restoring in turn).
fn effect(
    repo: &Repo,
    op: &salve_git::oplog::Operation,
    ops: &[salve_git::oplog::Operation],
) -> Option<(RecordedRun, bool)> {
    let mut current = op.clone();
    let mut reverse = true;
    // A chain longer than the log cannot be: it would loop.
    for _ in 0..=ops.len() {
        match current.kind.as_str() {
            salve_git::oplog::UNDO => {
                let target = current.target.as_deref()?;
                current = ops.iter().rev().find(|o| o.before == target)?.clone();
                reverse = !reverse;
            }
            salve_git::oplog::UNDO_RESTORE => return None,
            _ => return recorded_run(repo, &current).map(|run| (run, reverse)),
        }
    }
    None
}

/// The recorded change at the end of `op`'s chain of undos (of either kind), if any.
fn chain_run(
    repo: &Repo,
    op: &salve_git::oplog::Operation,
    ops: &[salve_git::oplog::Operation],
) -> Option<RecordedRun> {
    let mut current = op.clone();
    for _ in 0..=ops.len() {
        if !salve_git::oplog::is_undo(&current.kind) {
            return recorded_run(repo, &current);
        }
        let target = current.target.as_deref()?;
        current = ops.iter().rev().find(|o| o.before == target)?.clone();
    }
    None
}

/// The apply or ask run that took the checkpoint `op` names, with its applied diff.
fn recorded_run(repo: &Repo, op: &salve_git::oplog::Operation) -> Option<RecordedRun> {
    if op.kind != "apply" && op.kind != "ask" {
        return None;
    }
    let log = crate::record::log(&crate::record::LogOptions {
        dir: repo.root.clone(),
        limit: Some(50),
        ..Default::default()
    })
    .ok()?;
    let run = log.runs.iter().find(|r| {
        r.run
            .checkpoint
            .as_deref()
            .is_some_and(|c| !c.is_empty() && op.before.starts_with(c))
    })?;
    let shown = crate::record::show(&crate::record::ShowOptions {
        dir: repo.root.clone(),
        run: run.run.id.clone(),
        what: crate::record::Shown::Diffs,
    })
    .ok()?;
    let crate::record::ShowOutcome::Diffs { diffs, .. } = shown else {
        return None;
    };
    let diff: Vec<u8> = diffs.concat();
    let diff = String::from_utf8(diff)
        .ok()
        .filter(|d| !d.trim().is_empty())?;
    let max_file_size = run
        .run
        .budgets
        .as_ref()
        .and_then(|b| b.get(crate::apply::MAX_FILE_SIZE_KEY)?.as_u64());
    Some(RecordedRun {
        id: run.run.id.clone(),
        diff,
        max_file_size,
    })
}

/// Apply the run's diff (in reverse to undo it, forward to redo it), merged through the engine:
/// checkpointed and logged as an undo of `last`, so a further undo takes this one back the same
/// way; all files or none.
fn revert(
    repo: &Repo,
    last: &salve_git::oplog::Operation,
    run: &RecordedRun,
    (reverse, max_file_size): (bool, u64),
) -> Result<Outcome, Error> {
    let applied = crate::apply::apply(
        &run.diff,
        &crate::apply::Options {
            reverse,
            operation: salve_git::oplog::UNDO.to_owned(),
            undoes: Some(last.before.clone()),
            record: false,
            max_file_size,
            // Undo brings back what the files held, which may not have parsed.
            syntax_check: false,
            ..crate::apply::Options::new(&repo.root)
        },
    )?;
    if !matches!(
        applied.report.outcome,
        salve_patch::Outcome::Applied | salve_patch::Outcome::AlreadyApplied
    ) {
        let mut files: Vec<String> = applied
            .report
            .files
            .iter()
            .filter(|f| !f.status.is_success() && f.status != salve_patch::Status::Skipped)
            .map(|f| f.path.clone())
            .collect();
        if files.is_empty() {
            files = applied
                .report
                .files
                .iter()
                .map(|f| f.path.clone())
                .collect();
        }
        return Err(Error::Conflict {
            kind: last.kind.clone(),
            files,
        });
    }
    Ok(Outcome {
        undone: undone(last),
        restore: None,
        reverted: Some(Reverted {
            checkpoint: applied.checkpoint,
            redo: !reverse,
            run: run.id.clone(),
            written: applied
                .written
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
        }),
    })
}
