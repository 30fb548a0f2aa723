//! `gc`: prune old runs, then remove the artifacts no remaining run references and the
//! leftovers of interrupted writes: the record's own, and the temporary files a killed apply
//! left in the work tree.

use std::path::{Path, PathBuf};
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

/// What was removed: the counts, and the work tree's temporary files by name.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GcOutcome {
    /// `temp_files_removed` counts the record's own and the work tree's.
    #[serde(flatten)]
    pub stats: GcStats,
    /// Temporary files that killed salve writes left in the work tree, removed; relative to it.
    pub work_tree_temp_files: Vec<String>,
    /// False when there was no record to collect.
    #[serde(skip)]
    pub record: bool,
}

/// Prune the record and sweep the work tree; see the module docs. No record is nothing to
/// prune, but the tree is still swept.
pub fn gc(options: &GcOptions) -> Result<GcOutcome, Error> {
    let dir = existing_dir(&options.dir)?;
    let store = Store::open_existing(dir)?;
    let swept = sweep_work_tree(dir, store.is_some());
    let Some(mut store) = store else {
        return Ok(GcOutcome {
            stats: GcStats {
                temp_files_removed: swept.len(),
                ..GcStats::default()
            },
            work_tree_temp_files: swept,
            record: false,
        });
    };
    let mut stats = store.gc(&salve_store::GcOptions {
        older_than_ms: options.older_than_ms,
        now: Timestamp::now(),
        grace: Duration::from_secs(3600),
    })?;
    stats.temp_files_removed += swept.len();
    Ok(GcOutcome {
        stats,
        work_tree_temp_files: swept,
        record: true,
    })
}

/// Remove the temporary files of killed salve writes anywhere in the work tree around `dir`
/// (the whole repository's work tree when `dir` is in one), ignored directories included: a
/// file its owner will never rename into place is clutter, up to the size of the file it stood
/// in for. A live salve's files are left alone. Outside a repository only a directory with a
/// record is salve's to sweep, not whatever lies below the current one.
fn sweep_work_tree(dir: &Path, has_record: bool) -> Vec<String> {
    let root = match salve_git::Repo::discover(dir) {
        Ok(repo) => repo.root,
        Err(_) if has_record => dir.to_path_buf(),
        Err(_) => return Vec::new(),
    };
    let mut swept: Vec<String> = crate::transaction::sweep_tree(&root)
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap_or(p);
            rel.to_string_lossy().into_owned()
        })
        .collect();
    swept.sort();
    swept
}
