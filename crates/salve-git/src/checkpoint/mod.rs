//! Checkpoints: snapshots of the whole work tree (tracked, modified and untracked files that are
//! not ignored) plus the staged state, kept in one catalog out of the user's history views.
//!
//! - [`create()`] takes one without touching the user's index, HEAD or files.
//! - [`list()`] reads them back, newest first; [`find()`] resolves what a user typed.
//! - [`drop()`] removes them by id or by age.
//!
//! [`crate::restore()`] brings one back; [`crate::undo()`] goes back to the one taken before the
//! latest salve change.
//!
//! # Where they live
//!
//! One ref, [`CATALOG_REF`], points at one parentless commit whose tree holds a directory per
//! checkpoint, named by the checkpoint's commit id: `tree` (the work tree), `index` (the staged
//! state) and `meta` (a small blob: message, time, HEAD, branch; see `meta`). Taking or
//! dropping a checkpoint writes a new parentless catalog commit and moves the ref with a
//! compare-and-swap (`update-ref <ref> <new> <old>`, retried on a lost race), so concurrent
//! writers never lose each other's checkpoints. `git log --all`, tig and gitk see one commit
//! in all; `git branch -a` sees nothing; everything a checkpoint needs is reachable from the
//! ref, so `git gc --prune=now` keeps it until it is dropped.
//!
//! The alternative, the reflog of one ref as `refs/stash` does it, was not taken: reflog
//! entries expire on git's schedule (`gc.reflogExpireUnreachable`, 30 days by default, not
//! salve's), dropping one means rewriting the log by position (racy with a concurrent writer),
//! git writes no reflog for refs outside `refs/heads` and friends unless asked each time, and
//! the tip commit with its parents would still show in `git log --all`.
//!
//! Each checkpoint also has a commit of its own (its work tree, HEAD as parent, the meta as
//! message), written but not referenced: its id is the id users type and scripts read, and
//! `git show` works on it until git prunes it. Nothing depends on it surviving.
//!
//! Checkpoints of older salve versions are commits under `refs/salve/checkpoints/<id>`. They
//! are read as they are, and the next write of the catalog moves them into it and deletes
//! their refs.

use std::path::PathBuf;

use crate::cmd::GitError;
use crate::repo::Repo;

mod catalog;
pub mod create;
pub mod drop;
mod garbage;
#[cfg(unix)]
mod inproc;
#[cfg(not(unix))]
mod inproc {
    //! Building trees in process reads Unix stat data; elsewhere git builds them.
    pub(super) struct Trees {
        pub tree: String,
        pub index_tree: String,
    }

    pub(super) fn trees(
        _: &crate::repo::Repo,
        _: &super::scan::Scan,
        _: &super::options::Options,
    ) -> Result<Option<Trees>, crate::cmd::GitError> {
        Ok(None)
    }
}
mod legacy;
pub mod list;
pub(crate) mod meta;
pub(crate) mod options;
pub mod private;
#[cfg(unix)]
pub(crate) mod probe;
pub(crate) mod probe_disk;
pub(crate) mod raw;
mod scan;

pub use create::create;
pub use drop::drop;
pub use list::list;

/// The catalog's commit: it moves whenever a checkpoint is taken or dropped, so it stamps the
/// list cheaply (read from the ref files when they are plain, without starting git). `None`
/// before the first checkpoint.
pub fn catalog_tip(repo: &Repo) -> Result<Option<String>, GitError> {
    catalog::tip(repo)
}

/// The ref holding the catalog of checkpoints. It is shared by all worktrees of a repository;
/// each checkpoint records which work tree it came from.
pub const CATALOG_REF: &str = "refs/salve/catalog";

/// Where older salve versions kept one ref per checkpoint (read, and migrated on write).
pub const LEGACY_REF_PREFIX: &str = "refs/salve/checkpoints/";

pub(crate) fn legacy_ref_name(id: &str) -> String {
    format!("{LEGACY_REF_PREFIX}{id}")
}

/// The id users see: as many leading hex digits as keep it readable and collision-free in
/// practice; [`find()`] accepts any unique prefix.
pub(crate) fn short_id(commit: &str) -> String {
    commit.chars().take(12).collect()
}

/// A checkpoint as read back from the repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub id: String,
    pub commit: String,
    /// Seconds since the Unix epoch.
    pub time: i64,
    /// Nanoseconds within that second, when the checkpoint recorded them (older ones did not).
    pub nanos: Option<u32>,
    pub message: String,
    /// HEAD when it was taken, `None` on an unborn branch.
    pub head: Option<String>,
    /// The branch HEAD was on, `None` when detached.
    pub branch: Option<String>,
    /// The work tree's tree.
    pub tree: String,
    /// The staged state, `None` when the index was conflicted: a tree, or for checkpoints of
    /// older salve versions a commit whose tree it is (`<rev>^{tree}` resolves both).
    pub index: Option<String>,
    /// The work tree it was taken in.
    pub worktree: Option<PathBuf>,
    /// How many untracked paths it left out.
    pub skipped: usize,
    /// Files that differ from the HEAD of that time; filled in by [`list()`] on request.
    pub files_changed: Option<usize>,
    /// False when it is no longer listed (dropped) and only its commit remains, for example an
    /// old undo target.
    pub has_ref: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("no checkpoint `{0}`; `salve checkpoints` lists them")]
    NotFound(String),
    #[error("`{spec}` is ambiguous; it matches checkpoints {}", .matches.join(", "))]
    Ambiguous { spec: String, matches: Vec<String> },
}

/// The checkpoint a user means by `spec`: an id, a unique prefix of an id or commit, or the
/// commit of a checkpoint whose ref was dropped.
pub fn find(repo: &Repo, spec: &str) -> Result<Checkpoint, FindError> {
    let spec = spec.trim();
    let lowered = spec.to_ascii_lowercase();
    if lowered.is_empty() || !lowered.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(FindError::NotFound(spec.to_owned()));
    }
    let all = list(repo, &list::Options::default())?;
    if let Some(exact) = all.iter().find(|c| c.id == lowered) {
        return Ok(exact.clone());
    }
    let matches: Vec<&Checkpoint> = all
        .iter()
        .filter(|c| c.id.starts_with(&lowered) || c.commit.starts_with(&lowered))
        .collect();
    match matches.as_slice() {
        [one] => return Ok((*one).clone()),
        [] => {}
        many => {
            return Err(FindError::Ambiguous {
                spec: spec.to_owned(),
                matches: many.iter().map(|c| c.id.clone()).collect(),
            })
        }
    }
    if lowered.len() >= 7 {
        if let Some(commit) = repo.resolve_commit(&lowered)? {
            if let Some(found) = read_commit(repo, &commit)? {
                return Ok(found);
            }
        }
    }
    Err(FindError::NotFound(spec.to_owned()))
}

/// The checkpoint whose commit is `commit` (a full id): listed, or else read from its commit
/// while git still has it. `None` when neither knows it.
pub fn by_commit(repo: &Repo, commit: &str) -> Result<Option<Checkpoint>, GitError> {
    let commit = commit.trim().to_ascii_lowercase();
    let all = list(repo, &list::Options::default())?;
    if let Some(found) = all.into_iter().find(|c| c.commit == commit) {
        return Ok(Some(found));
    }
    match repo.resolve_commit(&commit)? {
        Some(resolved) => read_commit(repo, &resolved),
        None => Ok(None),
    }
}

/// The checkpoint stored in the commit object `commit`, whether or not it is still listed;
/// `None` when the commit is not a checkpoint.
pub fn read_commit(repo: &Repo, commit: &str) -> Result<Option<Checkpoint>, GitError> {
    let out = repo
        .git()
        .args([
            "log",
            "-1",
            "--no-walk",
            "--format=%H%x00%T%x00%ct%x00%B",
            commit,
            "--",
        ])
        .run_bytes()?;
    let mut fields = out.splitn(4, |b| *b == 0);
    let (Some(oid), Some(tree), Some(time), Some(body)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Ok(None);
    };
    let oid = String::from_utf8_lossy(oid).trim().to_owned();
    let Some(mut checkpoint) = parse(&oid, tree, time, body) else {
        return Ok(None);
    };
    let listed = list(repo, &list::Options::default())?;
    checkpoint.has_ref = listed.iter().any(|c| c.commit == oid);
    Ok(Some(checkpoint))
}

/// A checkpoint from its commit id, the commit's tree and time (decimal seconds) and its
/// message; or, for a catalog entry, empty tree and time and the entry's meta, which names
/// them itself.
fn parse(commit: &str, tree: &[u8], time: &[u8], message: &[u8]) -> Option<Checkpoint> {
    let meta = meta::Meta::parse(&String::from_utf8_lossy(message))?;
    let time = match String::from_utf8_lossy(time).trim().parse() {
        Ok(time) => time,
        Err(_) => meta.time.unwrap_or(0),
    };
    let tree = match String::from_utf8_lossy(tree).trim() {
        "" => meta.tree?,
        tree => tree.to_owned(),
    };
    Some(Checkpoint {
        id: short_id(commit),
        commit: commit.to_owned(),
        time,
        nanos: meta.nanos,
        message: meta.message,
        head: meta.head,
        branch: meta.branch,
        tree,
        index: meta.index,
        worktree: meta.worktree.map(PathBuf::from),
        skipped: meta.skipped,
        files_changed: None,
        has_ref: true,
    })
}
