//! `gc`: prune old runs, then remove the artifacts no remaining run references and the
//! leftovers of interrupted writes.

use std::path::PathBuf;
use std::time::Duration;

use salve_store::{GcStats, Store, Timestamp};
use serde::Serialize;

use super::error::{existing_dir, Error};

/// Runs are kept this long unless told otherwise, as git keeps its reflog: 90 days.
pub const DEFAULT_KEEP_MS: i64 = 90 * 24 * 3600 * 1000;

/// What to prune.
#[derive(Clone, Debug)]
pub struct GcOptions {
    /// The work tree whose record is pruned.
    pub dir: PathBuf,
    /// Prune runs started longer ago than this many milliseconds; `None` keeps every run.
    pub older_than_ms: Option<i64>,
}

/// What was removed. Serialized as the counts alone.
#[derive(Clone, Copy, Debug, Default, Serialize)]
#[serde(transparent)]
pub struct GcOutcome {
    pub stats: GcStats,
    /// False when there was no record to collect.
    #[serde(skip)]
    pub record: bool,
}

/// Prune the record; see the module docs. No record is nothing to do.
pub fn gc(options: &GcOptions) -> Result<GcOutcome, Error> {
    let dir = existing_dir(&options.dir)?;
    let Some(mut store) = Store::open_existing(dir)? else {
        return Ok(GcOutcome::default());
    };
    let stats = store.gc(&salve_store::GcOptions {
        older_than_ms: options.older_than_ms,
        now: Timestamp::now(),
        grace: Duration::from_secs(3600),
    })?;
    Ok(GcOutcome {
        stats,
        record: true,
    })
}
