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
    /// List at most this many (after `offset`), newest first; `None` lists all.
    pub limit: Option<usize>,
    /// Leave out this many of the newest first (paging).
    pub offset: usize,
}

pub type Error = GitError;

/// Every checkpoint, newest first (within a second too; remaining ties broken by id).
pub fn list(repo: &Repo, options: &Options) -> Result<Vec<Checkpoint>, Error> {
    let mut checkpoints = catalog::list(repo)?;
    for old in legacy::list(repo)? {
        if !checkpoints.iter().any(|c| c.commit == old.commit) {
            checkpoints.push(old);
        }
    }
    // Newest first, within a second too; ties (older checkpoints without nanoseconds) by id,
    // so the order is stable.
    checkpoints.sort_by(|a, b| {
        (b.time, b.nanos)
            .cmp(&(a.time, a.nanos))
            .then_with(|| a.id.cmp(&b.id))
    });
    if let Some(limit) = options.limit {
        checkpoints = checkpoints
            .into_iter()
            .skip(options.offset)
            .take(limit)
            .collect();
    } else if options.offset > 0 {
        checkpoints = checkpoints.into_iter().skip(options.offset).collect();
    }
    if options.with_file_counts {
        count_files(repo, &mut checkpoints)?;
    }
    Ok(checkpoints)
}

/// Each checkpoint's count of files changed against the HEAD it was taken on, in one git call
/// for all. A HEAD garbage-collected since (after a reset) leaves that count unknown, not an
/// error: those are counted one by one.
pub fn count_files(repo: &Repo, checkpoints: &mut [Checkpoint]) -> Result<(), Error> {
    let empty = repo.empty_tree()?;
    let bases: Vec<String> = checkpoints
        .iter()
        .map(|c| c.head.clone().unwrap_or_else(|| empty.clone()))
        .collect();
    // diff-tree --stdin compares trees: the HEADs are peeled to theirs, in one call.
    let pairs: Result<Vec<(String, String)>, Error> = repo.trees_of(&bases).map(|trees| {
        trees
            .into_iter()
            .zip(checkpoints.iter())
            .map(|(base, c)| (base, c.tree.clone()))
            .collect()
    });
    let counted = pairs.and_then(|pairs| repo.changed_counts(&pairs));
    match counted {
        Ok(counts) => {
            for (checkpoint, count) in checkpoints.iter_mut().zip(counts) {
                checkpoint.files_changed = Some(count);
            }
        }
        Err(_) => {
            for (checkpoint, base) in checkpoints.iter_mut().zip(&bases) {
                checkpoint.files_changed = repo
                    .changed_paths(base, &checkpoint.tree)
                    .ok()
                    .map(|paths| paths.len());
            }
        }
    }
    Ok(())
}
