//! Read checkpoints back, newest first: the catalog's, and any old-style refs not yet moved
//! into it.

use crate::checkpoint::{catalog, legacy, Checkpoint};
use crate::cmd::GitError;
use crate::repo::Repo;

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Also count the files each checkpoint changed against the HEAD it was taken on (one
    /// `diff-tree` per checkpoint).
    pub with_file_counts: bool,
}

pub type Error = GitError;

/// Every checkpoint, newest first (ties broken by id, so the order is stable).
pub fn list(repo: &Repo, options: &Options) -> Result<Vec<Checkpoint>, Error> {
    let mut checkpoints = catalog::list(repo)?;
    for old in legacy::list(repo)? {
        if !checkpoints.iter().any(|c| c.commit == old.commit) {
            checkpoints.push(old);
        }
    }
    checkpoints.sort_by(|a, b| b.time.cmp(&a.time).then_with(|| a.id.cmp(&b.id)));
    if options.with_file_counts {
        let empty = repo.empty_tree()?;
        for checkpoint in &mut checkpoints {
            let base = checkpoint.head.clone().unwrap_or_else(|| empty.clone());
            // The HEAD of that time may have been garbage-collected since (after a reset):
            // then the count is unknown, not an error.
            checkpoint.files_changed = repo
                .changed_paths(&base, &checkpoint.tree)
                .ok()
                .map(|paths| paths.len());
        }
    }
    Ok(checkpoints)
}
