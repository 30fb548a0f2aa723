//! `commit`: commit HEAD plus exactly the named files through a temporary index, with a
//! `<type>(<scopes>): MSG` message; the user's other staged and unstaged work stays as it was.

use std::path::{Component, Path, PathBuf};

use salve_git::commit::{self as git_commit, files, FixMessage};
use salve_git::{GitError, Repo};
use serde::Serialize;

pub use salve_git::commit::files::Exact;
pub use salve_git::commit::Verification;

use crate::checkpoint::show;
use crate::error::{Classified, Kind};
use crate::lock::LockError;

/// What to commit.
#[derive(Clone, Debug)]
pub struct Options {
    /// A directory inside the work tree; relative files are taken from it.
    pub dir: PathBuf,
    /// The files of the fix.
    pub files: Vec<PathBuf>,
    /// The conventional type: `fix` when empty, `feat`, `chore`, `refactor`, ...
    pub kind: String,
    /// The summary after `<type>(<scopes>): `.
    pub summary: String,
    /// The scopes; empty derives them from the files.
    pub scopes: Vec<String>,
    /// Checks that failed before the fix, for `Failed tasks:`.
    pub failed_tasks: Vec<String>,
    /// What `Local verification:` says; `None` (nothing was verified) writes no such line.
    pub verification: Option<Verification>,
    /// Skip the pre-commit and commit-msg hooks.
    pub no_verify: bool,
    /// Files committed with given contents rather than as the work tree has them (paths
    /// relative to the work tree root), each with the entry the user's index takes.
    pub exact: Vec<Exact>,
}

/// The commit made. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The branch advanced; `None` for a detached HEAD.
    pub branch: Option<String>,
    /// The files whose content the commit changed.
    pub changed: Vec<String>,
    pub commit: String,
    pub message: String,
    /// HEAD before; `None` on an unborn branch.
    pub parent: Option<String>,
}

/// Why nothing was committed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Commit(#[from] files::Error),
    #[error("{} is outside the work tree", .0.display())]
    Outside(PathBuf),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{}: {source}", path.display())]
    Path {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Git(e) | Error::Commit(files::Error::Git(e)) => e.kind(),
            Error::Commit(files::Error::NoIdentity) => Kind::Config,
            Error::Commit(
                files::Error::NothingToCommit
                | files::Error::InProgress(_)
                | files::Error::HeadMoved { .. }
                | files::Error::Hook { .. },
            ) => Kind::Refused,
            Error::Commit(_) | Error::Outside(_) | Error::Path { .. } => Kind::User,
            Error::Lock(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Git(e) | Error::Commit(files::Error::Git(e)) => e.code(),
            Error::Commit(e) => match e {
                files::Error::NoIdentity => "no_identity",
                files::Error::NothingToCommit => "nothing_to_commit",
                files::Error::InProgress(_) => "in_progress",
                files::Error::HeadMoved { .. } => "head_moved",
                files::Error::Hook { .. } => "hook_failed",
                files::Error::NoPaths => "no_paths",
                files::Error::OutsideWorkTree(_) => "outside_work_tree",
                files::Error::NoSuchPath(_) => "no_such_path",
                files::Error::EmptyMessage => "empty_message",
                files::Error::Io { .. } | files::Error::Git(_) => "io",
            },
            Error::Outside(_) => "outside_work_tree",
            Error::Path { .. } => "io",
            Error::Lock(e) => e.code(),
        }
    }

    fn hint(&self) -> Option<String> {
        let hint = match self {
            Error::Git(e) | Error::Commit(files::Error::Git(e)) => return e.hint(),
            Error::Lock(e) => return e.hint(),
            Error::Commit(e) => match e {
                files::Error::NoIdentity => {
                    "set user.name and user.email with `git config`, then commit again"
                }
                files::Error::NothingToCommit => {
                    "name the files the fix changed; `git status` lists what differs from HEAD"
                }
                files::Error::InProgress(_) => "finish or abort it, then commit again",
                files::Error::HeadMoved { .. } => {
                    "another commit landed meanwhile; look at it, then commit again"
                }
                files::Error::Hook { .. } => {
                    "fix what the hook reports, or skip the hooks if that is intended"
                }
                files::Error::NoPaths => "name at least one file of the fix",
                files::Error::OutsideWorkTree(_) => "name files inside the work tree",
                files::Error::NoSuchPath(_) => {
                    "name a file that exists in the work tree or in HEAD"
                }
                files::Error::EmptyMessage => "give a one-line summary of the fix",
                files::Error::Io { .. } | files::Error::Git(_) => {
                    "check the file named above is readable, then commit again"
                }
            },
            Error::Outside(_) => "name files inside the work tree",
            Error::Path { .. } => "check the path named above exists and is readable",
        };
        Some(hint.to_owned())
    }
}

/// Commit HEAD plus exactly `options.files`; see the module docs.
pub fn commit(options: &Options) -> Result<Outcome, Error> {
    let repo = Repo::discover(&options.dir)?;
    let _lock = crate::lock::acquire(&repo.root, crate::lock::DEFAULT_WAIT)?;
    let mut paths = Vec::new();
    for file in &options.files {
        paths.push(relative_to_root(&options.dir, file, &repo.root)?);
    }
    let scopes = if options.scopes.is_empty() {
        let named: Vec<PathBuf> = paths
            .iter()
            .cloned()
            .chain(options.exact.iter().map(|e| e.path.clone()))
            .collect();
        git_commit::scopes_for(&named)
    } else {
        options.scopes.clone()
    };
    let message = FixMessage {
        kind: options.kind.clone(),
        scopes,
        summary: options.summary.clone(),
        failed_tasks: options.failed_tasks.clone(),
        verification: options.verification,
    }
    .render();
    let outcome = git_commit::files(
        &repo,
        &files::Options {
            paths,
            message,
            no_verify: options.no_verify,
            exact: options.exact.clone(),
            ..files::Options::default()
        },
    )?;
    Ok(Outcome {
        commit: outcome.commit,
        parent: outcome.parent,
        branch: outcome.branch,
        changed: outcome.changed.iter().map(|p| show(p)).collect(),
        message: outcome.message,
    })
}

/// `file` as given (relative to `base`, itself relative to the current directory), relative to the work tree root.
fn relative_to_root(base: &Path, file: &Path, root: &Path) -> Result<PathBuf, Error> {
    let outside = || Error::Outside(file.to_path_buf());
    let joined = if file.is_absolute() {
        file.to_path_buf()
    } else {
        let cwd = std::env::current_dir().map_err(|source| Error::Path {
            path: PathBuf::from("."),
            source,
        })?;
        cwd.join(base).join(file)
    };
    // Resolve symlinks in the directories (the root is canonical) but not in the file itself,
    // which may be deleted or a symlink that is part of the fix.
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    let name = normal.file_name().ok_or_else(outside)?.to_owned();
    let parent = normal.parent().ok_or_else(outside)?;
    let (existing, rest) = existing_ancestor(parent);
    let canonical = existing.canonicalize().map_err(|source| Error::Path {
        path: existing.clone(),
        source,
    })?;
    let full = canonical.join(rest).join(name);
    let rel = full.strip_prefix(root).map_err(|_| outside())?;
    if rel.as_os_str().is_empty() {
        return Err(outside());
    }
    Ok(rel.to_path_buf())
}

/// The deepest existing ancestor of `dir`, and the missing part below it.
fn existing_ancestor(dir: &Path) -> (PathBuf, PathBuf) {
    let mut existing = dir.to_path_buf();
    let mut missing = Vec::new();
    while !existing.exists() {
        match (
            existing.file_name().map(ToOwned::to_owned),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                missing.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let rest: PathBuf = missing.iter().rev().collect();
    (existing, rest)
}
