//! Checkpoints: snapshots of the whole work tree (tracked, modified and untracked files that are
//! not ignored) plus the staged state, kept as commits under `refs/salve/checkpoints/<id>`.
//!
//! - [`create()`] takes one without touching the user's index, HEAD or files.
//! - [`list()`] reads them back, newest first; [`find()`] resolves what a user typed.
//! - [`drop()`] deletes refs by id or by age.
//!
//! [`crate::restore()`] brings one back; [`crate::undo()`] goes back to the one taken before the
//! latest salve change.

use std::path::PathBuf;

use crate::cmd::GitError;
use crate::repo::Repo;

pub mod create;
pub mod drop;
pub mod list;
pub(crate) mod meta;
mod scan;

pub use create::create;
pub use drop::drop;
pub use list::list;

/// Where checkpoint refs live. They are shared by all worktrees of a repository; each checkpoint
/// records which work tree it came from.
pub const REF_PREFIX: &str = "refs/salve/checkpoints/";

pub(crate) fn ref_name(id: &str) -> String {
    format!("{REF_PREFIX}{id}")
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
    pub message: String,
    /// HEAD when it was taken, `None` on an unborn branch.
    pub head: Option<String>,
    /// The branch HEAD was on, `None` when detached.
    pub branch: Option<String>,
    /// The commit whose tree is the staged state, `None` when the index was conflicted.
    pub index_commit: Option<String>,
    /// The work tree it was taken in.
    pub worktree: Option<PathBuf>,
    /// How many untracked paths it left out.
    pub skipped: usize,
    /// Files that differ from the HEAD of that time; filled in by [`list()`] on request.
    pub files_changed: Option<usize>,
    /// False when the ref is gone and only the commit remains (for example an old undo target).
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

/// The checkpoint stored in `commit`, ref or not; `None` when the commit is not a checkpoint.
pub fn read_commit(repo: &Repo, commit: &str) -> Result<Option<Checkpoint>, GitError> {
    let out = repo
        .git()
        .args([
            "log",
            "-1",
            "--no-walk",
            "--format=%H%x00%ct%x00%B",
            commit,
            "--",
        ])
        .run_bytes()?;
    let mut fields = out.splitn(3, |b| *b == 0);
    let (Some(oid), Some(time), Some(body)) = (fields.next(), fields.next(), fields.next()) else {
        return Ok(None);
    };
    let oid = String::from_utf8_lossy(oid).trim().to_owned();
    let mut checkpoint = match parse(&oid, time, body) {
        Some(c) => c,
        None => return Ok(None),
    };
    checkpoint.has_ref = repo.resolve_commit(&ref_name(&checkpoint.id))?.as_deref() == Some(&oid);
    Ok(Some(checkpoint))
}

/// A checkpoint from its commit id, commit time (decimal seconds) and message.
fn parse(commit: &str, time: &[u8], message: &[u8]) -> Option<Checkpoint> {
    let meta = meta::Meta::parse(&String::from_utf8_lossy(message))?;
    let time = String::from_utf8_lossy(time).trim().parse().unwrap_or(0);
    Some(Checkpoint {
        id: short_id(commit),
        commit: commit.to_owned(),
        time,
        message: meta.message,
        head: meta.head,
        branch: meta.branch,
        index_commit: meta.index_commit,
        worktree: meta.worktree.map(PathBuf::from),
        skipped: meta.skipped,
        files_changed: None,
        has_ref: true,
    })
}
