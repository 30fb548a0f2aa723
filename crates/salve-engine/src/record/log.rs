//! `log`: recorded runs, newest first.

use std::path::PathBuf;

use salve_store::{Layout, LogQuery, RunKind, RunSummary, Store, Timestamp};
use serde::Serialize;

use super::error::{existing_dir, Error};

/// Which runs to list.
#[derive(Clone, Debug, Default)]
pub struct LogOptions {
    /// The work tree whose record is read.
    pub dir: PathBuf,
    /// At most this many runs; `None` for all.
    pub limit: Option<usize>,
    /// Only runs with this status.
    pub status: Option<String>,
    /// Only runs of this kind.
    pub kind: Option<RunKind>,
    /// Only runs started at or after this time.
    pub since: Option<Timestamp>,
    /// Only runs older than this full run id: the next page after a page ending there.
    pub before: Option<String>,
    /// Sum each run's attempts (provider, model, tokens, cost) into its `usage`.
    pub usage: bool,
    /// Only runs whose command, status or message holds this text, or that touched a path
    /// holding it.
    pub search: Option<String>,
}

/// Whether there is a record to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordState {
    /// The record exists.
    Kept,
    /// Runs will be recorded here, none has been yet.
    Empty,
    /// Outside a git repository and without a `.salve/` directory: nothing is recorded here.
    NotKept,
}

/// The runs, newest first. Serialized as the array of runs alone.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct LogOutcome {
    pub runs: Vec<RunSummary>,
    #[serde(skip)]
    pub record: RecordState,
}

/// List the runs `options` selects. Reading an empty history creates nothing.
pub fn log(options: &LogOptions) -> Result<LogOutcome, Error> {
    let dir = existing_dir(&options.dir)?;
    let Some(store) = Store::open_existing(dir)? else {
        let layout = Layout::locate(dir);
        let record = if layout.in_git || layout.dir.is_dir() {
            RecordState::Empty
        } else {
            RecordState::NotKept
        };
        return Ok(LogOutcome {
            runs: Vec::new(),
            record,
        });
    };
    let query = LogQuery {
        limit: options.limit,
        status: options.status.clone(),
        since: options.since,
        kind: options.kind,
        before: options.before.clone(),
        usage: options.usage,
        search: options.search.clone(),
    };
    Ok(LogOutcome {
        runs: store.list(&query)?,
        record: RecordState::Kept,
    })
}

/// The run that took each of `checkpoints` (checkpoint ids), as (checkpoint, run id) pairs;
/// checkpoints taken by hand or by a restore have none. Empty without a record.
pub fn runs_by_checkpoint(
    dir: &std::path::Path,
    checkpoints: &[String],
) -> Result<Vec<(String, String)>, Error> {
    let dir = existing_dir(dir)?;
    match Store::open_existing(dir)? {
        Some(store) => Ok(store.runs_by_checkpoint(checkpoints)?),
        None => Ok(Vec::new()),
    }
}

/// A fingerprint of the listing of the record of `dir`: it changes when a run starts,
/// finishes, or is rewound or brought back, so a page can poll it. Empty without a record.
pub fn stamp(dir: &std::path::Path) -> Result<String, Error> {
    let dir = existing_dir(dir)?;
    match Store::open_existing(dir)? {
        Some(store) => Ok(store.stamp()?),
        None => Ok(String::new()),
    }
}
