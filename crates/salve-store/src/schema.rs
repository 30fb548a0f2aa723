//! Opening the database: pragmas, and migrations keyed on `PRAGMA user_version`.
//!
//! Migration `i` (0-based) takes the schema from version `i` to `i + 1`; a new database runs them
//! all. Each runs in an immediate transaction that re-reads the version first, so two processes
//! opening a fresh record at once migrate it once. A database newer than [`SCHEMA_VERSION`] is
//! refused before anything is written to it (not even the WAL switch).
//!
//! Version history:
//! 1. runs, patch sets with touched files, attempts, decisions, artifacts.
//! 2. the owning process of a run (to tell `interrupted` from `running`), a message on the run,
//!    per-run totals for fast listings (back-filled), rename sources, attempt check logs, and
//!    indexes for `--status` and `--since`.
//! 3. the fix loop's persisted budget counters (per branch, failure signature and kind) and its
//!    learned repair rules. New tables only: older salves never read them, and a version 2
//!    record gains them empty.
//! 4. the restore that rewound a run (`rewound_by`, the checkpoint commit taken before it, so
//!    restoring that checkpoint brings the run back), and indexes for listing by kind and for
//!    the page's cheap change stamp.
//! 5. a change counter (`changes`, one row) that triggers move on every write to the runs and
//!    the rows listed with them (attempts, touched files): the page's change stamp is one
//!    primary-key read, whatever the size of the record, where version 4's aggregates over
//!    `runs` grew with it. Back-filled from the runs there are. And an index to find the run
//!    that took a checkpoint.
//! 6. small artifact contents in the database (`contents`, see `crate::contents`), written in
//!    the transaction of the rows naming them instead of as files, each with an fsync of its
//!    own. Older contents stay objects and read as before.

use std::path::Path;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::error::{Result, StoreError};

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// WAL pages between automatic checkpoints (SQLite's default is 1000).
pub(crate) const WAL_PAGES: u32 = 64;

/// How long a writer waits for another process's transaction before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The first schema. Kept verbatim: databases written by it exist.
pub(crate) const V1: &str = r#"
CREATE TABLE runs (
    id          TEXT PRIMARY KEY NOT NULL,
    kind        TEXT NOT NULL,
    command     TEXT NOT NULL,
    baseline    TEXT,
    checkpoint  TEXT,
    started_ms  INTEGER NOT NULL,
    ended_ms    INTEGER,
    status      TEXT NOT NULL,
    budgets     TEXT
);
CREATE TABLE patch_sets (
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    baseline    TEXT,
    diff_sha256 TEXT,
    rationale   TEXT,
    format      TEXT,
    status      TEXT NOT NULL,
    reason      TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE touched_files (
    run_id      TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    ord         INTEGER NOT NULL,
    path        TEXT NOT NULL,
    change      TEXT NOT NULL,
    added       INTEGER NOT NULL,
    removed     INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq, ord),
    FOREIGN KEY (run_id, seq) REFERENCES patch_sets(run_id, seq) ON DELETE CASCADE
);
CREATE TABLE attempts (
    run_id        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    patch_set     INTEGER,
    started_ms    INTEGER,
    check_command TEXT,
    exit_code     INTEGER,
    failure_class TEXT,
    duration_ms   INTEGER,
    provider      TEXT,
    model         TEXT,
    tokens_in     INTEGER,
    tokens_out    INTEGER,
    cost_usd      REAL,
    latency_ms    INTEGER,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE decisions (
    run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    chosen       TEXT NOT NULL,
    alternatives TEXT NOT NULL,
    confidence   REAL,
    evidence     TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE artifacts (
    run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name    TEXT NOT NULL,
    sha256  TEXT NOT NULL,
    size    INTEGER NOT NULL,
    PRIMARY KEY (run_id, name)
);
"#;

const V2: &str = r#"
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN pid_start INTEGER;
ALTER TABLE runs ADD COLUMN message TEXT;
ALTER TABLE runs ADD COLUMN files INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN added INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN removed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE touched_files ADD COLUMN old_path TEXT;
ALTER TABLE attempts ADD COLUMN log_artifact TEXT;
UPDATE runs SET
    files = (SELECT count(DISTINCT t.path) FROM touched_files t JOIN patch_sets p
             ON p.run_id = t.run_id AND p.seq = t.seq
             WHERE t.run_id = runs.id AND p.status <> 'rejected'),
    added = (SELECT coalesce(sum(t.added), 0) FROM touched_files t JOIN patch_sets p
             ON p.run_id = t.run_id AND p.seq = t.seq
             WHERE t.run_id = runs.id AND p.status <> 'rejected'),
    removed = (SELECT coalesce(sum(t.removed), 0) FROM touched_files t JOIN patch_sets p
               ON p.run_id = t.run_id AND p.seq = t.seq
               WHERE t.run_id = runs.id AND p.status <> 'rejected');
CREATE INDEX runs_by_status ON runs(status, id);
CREATE INDEX runs_by_start ON runs(started_ms);
CREATE INDEX artifacts_by_sha ON artifacts(sha256);
"#;

const V3: &str = r#"
CREATE TABLE budget_counters (
    branch     TEXT NOT NULL,
    signature  TEXT NOT NULL,
    kind       TEXT NOT NULL,
    spent      INTEGER NOT NULL DEFAULT 0,
    first_ms   INTEGER NOT NULL,
    last_ms    INTEGER NOT NULL,
    PRIMARY KEY (branch, signature, kind)
);
CREATE TABLE rules (
    id          TEXT PRIMARY KEY NOT NULL,
    kind        TEXT NOT NULL,
    tool        TEXT,
    code        TEXT,
    message     TEXT NOT NULL,
    template    TEXT NOT NULL,
    confidence  REAL NOT NULL,
    hits        INTEGER NOT NULL DEFAULT 0,
    successes   INTEGER NOT NULL DEFAULT 0,
    failures    INTEGER NOT NULL DEFAULT 0,
    retired     INTEGER NOT NULL DEFAULT 0,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
);
CREATE INDEX rules_by_pattern ON rules(kind, message);
"#;

const V4: &str = r#"
ALTER TABLE runs ADD COLUMN rewound_by TEXT;
CREATE INDEX runs_by_kind ON runs(kind, id);
CREATE INDEX runs_by_rewound ON runs(rewound_by);
CREATE INDEX runs_by_end ON runs(ended_ms);
"#;

const V5: &str = r#"
CREATE TABLE changes (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    n   INTEGER NOT NULL
);
INSERT INTO changes (id, n) VALUES (1, (SELECT count(*) FROM runs));
CREATE TRIGGER changes_run_insert AFTER INSERT ON runs
    BEGIN UPDATE changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER changes_run_update AFTER UPDATE ON runs
    BEGIN UPDATE changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER changes_run_delete AFTER DELETE ON runs
    BEGIN UPDATE changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER changes_attempt_insert AFTER INSERT ON attempts
    BEGIN UPDATE changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER changes_attempt_update AFTER UPDATE ON attempts
    BEGIN UPDATE changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER changes_touched_insert AFTER INSERT ON touched_files
    BEGIN UPDATE changes SET n = n + 1 WHERE id = 1; END;
CREATE INDEX runs_by_checkpoint ON runs(checkpoint);
"#;

const V6: &str = r#"
CREATE TABLE contents (
    sha256  TEXT PRIMARY KEY NOT NULL,
    bytes   BLOB NOT NULL
) WITHOUT ROWID;
"#;

const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6];

/// Open (creating when missing) and migrate the database at `path`.
pub(crate) fn open(path: &Path) -> Result<Connection> {
    let err = |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(err)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
    let found = check_version(&conn, path)?;
    set_wal(&conn).map_err(err)?;
    // Most processes open the record for one short write. Folding the WAL back into the
    // database (and deleting it) on every close would cost each of them fsyncs and two file
    // deletions. Instead the WAL stays, and is checkpointed every WAL_PAGES pages: kept that
    // small because the first process to open the record reads the whole WAL to index it.
    // A run's start checkpoints before its row when due, and its end never
    // (`Store::begin_run_with`, `Store::finish_run_with`): the caller waits for the end.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .map_err(err)?;
    // NORMAL is durable against process crashes in WAL mode; only a power cut can lose the
    // last transactions, never corrupt the file.
    conn.execute_batch(&format!(
        "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
         PRAGMA wal_autocheckpoint = {WAL_PAGES}; PRAGMA journal_size_limit = {};",
        WAL_PAGES * 4096 * 4
    ))
    .map_err(err)?;
    // The version read above is current on every open but a record's first: no migration
    // transaction, and no second read of it.
    if found != SCHEMA_VERSION {
        migrate(&mut conn, path)?;
    }
    Ok(conn)
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

fn check_version(conn: &Connection, path: &Path) -> Result<i64> {
    let found = user_version(conn).map_err(|source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    })?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew {
            path: path.to_path_buf(),
            found,
            known: SCHEMA_VERSION,
        });
    }
    Ok(found)
}

/// Switch to WAL. Changing the journal mode needs a moment alone with the file; when another
/// process is doing the same the busy handler is not always consulted, so retry briefly.
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    let mut tries = 0;
    loop {
        let res: rusqlite::Result<String> =
            conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0));
        match res {
            Ok(_) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                    && tries < 200 =>
            {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let err = |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(err)?;
    // Another process may have migrated while this one waited for the lock.
    let found = check_version(&tx, path)?;
    for (from, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(found).unwrap_or(0))
    {
        tx.execute_batch(sql).map_err(err)?;
        tx.pragma_update(None, "user_version", from as i64 + 1)
            .map_err(err)?;
    }
    tx.commit().map_err(err)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn fresh_database_is_current_and_wal() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("salve.db");
        let conn = open(&path).unwrap();
        assert_eq!(user_version(&conn).unwrap(), SCHEMA_VERSION);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(conn);
        // Opening again is a no-op.
        let conn = open(&path).unwrap();
        assert_eq!(user_version(&conn).unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn newer_schema_is_refused_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("salve.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;")
                .unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let err = open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::SchemaTooNew { found: 99, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("newer than this salve knows"));
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(!tmp.path().join("salve.db-wal").exists());
    }
}
