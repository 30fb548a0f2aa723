//! salve-store keeps salve's record (DESIGN.md §7): what every run did, with what, why and at
//! what cost, so users and reviewers can look back long after the fact.
//!
//! - A [`Store`] is a SQLite database (WAL mode, busy timeout, migrations on `user_version`, see
//!   [`schema`]) holding small artifacts itself, plus a directory of content-addressed large
//!   ones ([`objects`]), both found by
//!   [`Layout::locate`]: `<git common dir>/salve/` in a repository, `.salve/` elsewhere.
//! - Writing: [`Store::begin_run`], then [`Store::add_patch_set`], [`Store::add_attempt`],
//!   [`Store::add_decision`], [`Store::put_artifact`] as the job goes, and [`Store::finish_run`].
//!   [`Store::add_batch`] adds what a job produced in one transaction;
//!   [`Store::begin_run_with`] and [`Store::finish_run_with`] start a run with its first
//!   artifacts and end it with its rows, one commit each (what an apply does); the start folds
//!   the WAL back when due, and [`Store::prepare_finish`] compiles the end's statements ahead.
//! - Reading: [`Store::list`] (for `salve log` and the page, with keyset paging and usage sums),
//!   [`Store::resolve`] (id prefixes), [`Store::record`] (for `salve show`), [`Store::artifact`]
//!   and [`Store::content`],
//!   [`Store::stamp`] (a cheap fingerprint the page polls).
//! - Rewinds: [`Store::mark_rewound`] and [`Store::unmark_rewound`] flag the runs a restore to a
//!   run took back, and bring them back; nothing is deleted.
//! - The fix loop's state across runs: budget counters ([`Store::spend_budget`],
//!   [`Store::budget_counters`], [`Store::reset_budgets`], see [`counters`]) and learned rules
//!   ([`Store::save_rule`], [`Store::rules_matching`], [`Store::update_rule`], see [`rules`]).
//! - Moving records: [`Store::export`] and [`Store::import`] (JSON Lines, see [`exchange`]);
//!   pruning: [`Store::gc`].
//!
//! A run that was started and never finished shows as `interrupted` once its process is gone
//! ([`liveness`]); nothing needs to clean up after a killed salve.
//!
//! ```no_run
//! use salve_store::{NewRun, RunKind, Store, Finish};
//!
//! let mut store = Store::open(std::path::Path::new(".")).unwrap();
//! let run = store.begin_run(&NewRun::new(RunKind::Apply, vec!["salve".into(), "apply".into()])).unwrap();
//! store.put_artifact(&run, "raw_reply", b"...").unwrap();
//! store.finish_run(&run, &Finish { status: "applied".into(), ..Default::default() }).unwrap();
//! ```

mod contents;
pub mod counters;
mod error;
pub mod exchange;
mod gc;
pub mod id;
pub mod liveness;
mod location;
mod model;
pub mod objects;
mod pool;
mod query;
mod record;
pub mod rules;
pub mod schema;
pub mod time;

use std::path::Path;

pub use counters::{BudgetCounter, Spend};
pub use error::{Result, StoreError};
pub use exchange::ImportStats;
pub use gc::{GcOptions, GcStats};
pub use location::Layout;
pub use model::{
    artifact, status, Artifact, Attempt, Batch, Decision, FileChange, Finish, NewRun, PatchSet,
    PatchStatus, Run, RunKind, RunRecord, RunSummary, TouchedFile, Usage,
};
pub use objects::Objects;
pub use pool::keep_connections_open;
pub use query::LogQuery;
pub use rules::LearnedRule;
pub use time::Timestamp;

/// An open record.
pub struct Store {
    conn: pool::Pooled,
    layout: Layout,
    objects: Objects,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("layout", &self.layout)
            .finish()
    }
}

impl Store {
    /// Open (creating when missing) the record for work done in `dir`. Outside a git
    /// repository a record is kept only where a `.salve/` directory exists, so salve never
    /// litters a plain directory: [`StoreError::NoRecord`] otherwise.
    pub fn open(dir: &Path) -> Result<Store> {
        let layout = Layout::locate(dir);
        if !layout.in_git && !layout.dir.is_dir() {
            return Err(StoreError::NoRecord(dir.to_path_buf()));
        }
        Store::open_layout(layout)
    }

    /// [`Store::open`], or `None` where no record is kept (a plain directory without `.salve/`),
    /// for writers that record when they can.
    pub fn open_if_kept(dir: &Path) -> Result<Option<Store>> {
        match Store::open(dir) {
            Ok(store) => Ok(Some(store)),
            Err(StoreError::NoRecord(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Open the record for work done in `dir` only if one exists; reads use this so that looking
    /// at an empty history creates nothing.
    pub fn open_existing(dir: &Path) -> Result<Option<Store>> {
        let layout = Layout::locate(dir);
        if !layout.db.is_file() {
            return Ok(None);
        }
        Store::open_layout(layout).map(Some)
    }

    /// Open (creating when missing) the record at `layout`, wherever it is.
    pub fn open_layout(layout: Layout) -> Result<Store> {
        std::fs::create_dir_all(&layout.dir)
            .map_err(|e| StoreError::io(format!("creating {}", layout.dir.display()), e))?;
        let conn = match pool::take(&layout.db) {
            Some(kept) => kept,
            None => pool::Pooled::new(schema::open(&layout.db)?, &layout.db),
        };
        let objects = Objects::new(&layout.objects);
        Ok(Store {
            conn,
            layout,
            objects,
        })
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn objects(&self) -> &Objects {
        &self.objects
    }

    /// `PRAGMA integrity_check`: `Ok` when SQLite finds nothing wrong, else what it found.
    pub fn integrity_check(&self) -> Result<Vec<String>> {
        self.strings("PRAGMA integrity_check")
    }

    /// The first column of every row `sql` returns, as text.
    fn strings(&self, sql: &str) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.sql(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.layout.db.clone(),
            source,
        }
    }
}
