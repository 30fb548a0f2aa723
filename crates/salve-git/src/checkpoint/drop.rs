//! Remove checkpoints from the catalog, by id or by age.
//!
//! One catalog write removes them all (compare-and-swap, like every catalog write), so a
//! checkpoint another process takes meanwhile is kept. The objects stay in the object store
//! until git's own garbage collection finds them unreachable.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::checkpoint::{catalog, find, list, Checkpoint, FindError};
use crate::cmd::GitError;
use crate::repo::Repo;

/// Which checkpoints to delete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// One checkpoint, by id or unique prefix.
    Id(String),
    /// Every checkpoint older than this.
    OlderThan(Duration),
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub dropped: Vec<Checkpoint>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Find(#[from] FindError),
}

/// Delete the selected checkpoints.
pub fn drop(repo: &Repo, selection: &Selection) -> Result<Outcome, Error> {
    let doomed: Vec<Checkpoint> = match selection {
        Selection::Id(spec) => {
            let found = find(repo, spec)?;
            if !found.has_ref {
                return Err(FindError::NotFound(spec.clone()).into());
            }
            vec![found]
        }
        Selection::OlderThan(age) => {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let cutoff = now.saturating_sub(age.as_secs());
            list(repo, &list::Options::default())?
                .into_iter()
                .filter(|c| u64::try_from(c.time).unwrap_or(0) < cutoff)
                .collect()
        }
    };
    if doomed.is_empty() {
        return Ok(Outcome::default());
    }
    let commits: Vec<String> = doomed.iter().map(|c| c.commit.clone()).collect();
    catalog::remove(repo, &commits)?;
    // The ignored files only these checkpoints held go with them; failing to is harmless.
    let _ = crate::checkpoint::private::forget(repo, &commits);
    crate::checkpoint::raw::forget(repo, &commits);
    Ok(Outcome { dropped: doomed })
}
