//! Writing the record: start a run, add its patch sets, attempts, decisions and artifacts as the
//! job goes, finish it. Each call is one short transaction, so a killed process leaves every
//! earlier call recorded and the database consistent.

use rusqlite::{params, Connection, ErrorCode, OptionalExtension as _, TransactionBehavior};

use crate::contents::{self, Content};
use crate::error::{Result, StoreError};
use crate::id::new_run_id;
use crate::liveness::ProcessId;
use crate::model::{
    status, Artifact, Attempt, Batch, Decision, Finish, NewRun, PatchSet, PatchStatus,
};
use crate::schema::WAL_PAGES;
use crate::time::Timestamp;
use crate::Store;

impl Store {
    /// Start a run: it is `running` until [`finish_run`](Self::finish_run), and `interrupted`
    /// if this process dies first. Returns the run id.
    pub fn begin_run(&mut self, new: &NewRun) -> Result<String> {
        self.begin_run_with(new, &[]).map(|(id, _)| id)
    }

    /// [`begin_run`](Self::begin_run) and [`put_artifact`](Self::put_artifact) of each of
    /// `artifacts`, in one transaction: a job that has its input at the start (an apply's reply)
    /// pays for one commit, where a commit per row rewrote the run's pages once more each.
    /// Large contents are stored first, so a row never names an object that is not there.
    pub fn begin_run_with(
        &mut self,
        new: &NewRun,
        artifacts: &[(&str, &[u8])],
    ) -> Result<(String, Vec<Artifact>)> {
        let command = json(&new.command)?;
        let budgets = new.budgets.as_ref().map(json).transpose()?;
        let stored = self.store_objects(artifacts)?;
        // A run's start is where the WAL is folded back when due, before its row: then this
        // commit, not the run's end that a caller waits for, is the first write to the
        // restarted WAL, which syncs the WAL's new header. An apply starts its run on a side
        // thread while it places and writes, so the checkpoint's fsyncs overlap that work.
        self.checkpoint_if_due()?;
        let id = self.without_autocheckpoint(|store| {
            store.in_transaction(|tx| {
                let id = insert_run(tx, new, &command, budgets.as_deref())?;
                stored.insert(tx, &id)?;
                Ok(id)
            })
        })?;
        Ok((id, stored.artifacts))
    }

    /// End a run with its outcome.
    pub fn finish_run(&mut self, run: &str, finish: &Finish) -> Result<()> {
        let budgets = finished_budgets(finish)?;
        let n = finish_row(&self.conn, run, finish, budgets.as_deref()).map_err(|e| self.sql(e))?;
        if n == 0 {
            return Err(StoreError::NoSuchRun(run.to_owned()));
        }
        Ok(())
    }

    /// [`add_batch`](Self::add_batch) and [`finish_run`](Self::finish_run) in one transaction:
    /// what a job produced and how it ended, in one commit at its end (after the job's writes,
    /// where every commit is waited for).
    pub fn finish_run_with(&mut self, run: &str, batch: &Batch<'_>, finish: &Finish) -> Result<()> {
        let budgets = finished_budgets(finish)?;
        let stored = self.store_objects(&batch.artifacts)?;
        // The caller waits for this commit; folding the WAL back into the database (its
        // fsyncs) is left to the next run's start, which other work overlaps. What is durable
        // is unchanged: a commit in WAL mode with `synchronous = NORMAL` is never synced by
        // itself, only by a checkpoint, and the WAL still stays within a run's pages of
        // `WAL_PAGES`.
        let n = self.without_autocheckpoint(|store| {
            store.in_transaction(|tx| {
                batch_rows(tx, run, &stored, batch)?;
                finish_row(tx, run, finish, budgets.as_deref())
            })
        })?;
        if n == 0 {
            return Err(StoreError::NoSuchRun(run.to_owned()));
        }
        Ok(())
    }

    /// Store `bytes` as the run's artifact `name` (replacing an earlier one of that name).
    pub fn put_artifact(&mut self, run: &str, name: &str, bytes: &[u8]) -> Result<Artifact> {
        let stored = self.store_objects(&[(name, bytes)])?;
        self.in_transaction(|tx| stored.insert(tx, run))?;
        let Stored { mut artifacts, .. } = stored;
        artifacts
            .pop()
            .ok_or_else(|| StoreError::Invalid(format!("`{name}` was not stored")))
    }

    /// Add a patch set after the run's others; returns its sequence number.
    pub fn add_patch_set(&mut self, run: &str, patch: &PatchSet) -> Result<u32> {
        self.in_transaction(|tx| {
            let seq = next_seq(tx, "patch_sets", run)?;
            insert_patch_set(tx, run, seq, patch)?;
            update_totals(tx, run)?;
            Ok(seq)
        })
    }

    /// Change a patch set's status (a proposed patch applied, or an applied one rolled back).
    pub fn set_patch_status(
        &mut self,
        run: &str,
        seq: u32,
        status: PatchStatus,
        reason: Option<&str>,
    ) -> Result<()> {
        let n = self
            .conn
            .execute(
                "UPDATE patch_sets SET status = ?3, reason = ?4 WHERE run_id = ?1 AND seq = ?2",
                params![run, seq, status.as_str(), reason],
            )
            .map_err(|e| self.sql(e))?;
        if n == 0 {
            return Err(StoreError::Invalid(format!(
                "run {run} has no patch set {seq}"
            )));
        }
        update_totals(&self.conn, run).map_err(|e| self.sql(e))
    }

    /// Mark `run` and every later run not yet rewound as rewound by the restore that took the
    /// checkpoint commit `by`. Returns the ids marked, oldest first. Nothing is deleted.
    pub fn mark_rewound(&mut self, run: &str, by: &str) -> Result<Vec<String>> {
        self.in_transaction(|tx| {
            let ids: Vec<String> = tx
                .prepare("SELECT id FROM runs WHERE id >= ?1 AND rewound_by IS NULL ORDER BY id")?
                .query_map([run], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            tx.execute(
                "UPDATE runs SET rewound_by = ?2 WHERE id >= ?1 AND rewound_by IS NULL",
                params![run, by],
            )?;
            Ok(ids)
        })
    }

    /// Bring back the runs the restore that took checkpoint commit `by` rewound (that
    /// checkpoint was restored). Returns the ids, oldest first.
    pub fn unmark_rewound(&mut self, by: &str) -> Result<Vec<String>> {
        self.in_transaction(|tx| {
            let ids: Vec<String> = tx
                .prepare("SELECT id FROM runs WHERE rewound_by = ?1 ORDER BY id")?
                .query_map([by], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            tx.execute(
                "UPDATE runs SET rewound_by = NULL WHERE rewound_by = ?1",
                [by],
            )?;
            Ok(ids)
        })
    }

    /// Add an attempt after the run's others; returns its sequence number.
    pub fn add_attempt(&mut self, run: &str, attempt: &Attempt) -> Result<u32> {
        self.in_transaction(|tx| {
            let seq = next_seq(tx, "attempts", run)?;
            insert_attempt(tx, run, seq, attempt)?;
            Ok(seq)
        })
    }

    /// Add a decision after the run's others; returns its sequence number.
    pub fn add_decision(&mut self, run: &str, decision: &Decision) -> Result<u32> {
        self.in_transaction(|tx| {
            let seq = next_seq(tx, "decisions", run)?;
            insert_decision(tx, run, seq, decision)?;
            Ok(seq)
        })
    }

    /// Add many rows at once, in one transaction after the run's others: what a job produced
    /// when it ends (an apply's artifacts, patch sets and decisions). Large contents are stored first,
    /// so a row never names an object that is not there.
    pub fn add_batch(&mut self, run: &str, batch: &Batch<'_>) -> Result<()> {
        let stored = self.store_objects(&batch.artifacts)?;
        self.in_transaction(|tx| batch_rows(tx, run, &stored, batch))
    }

    fn set_autocheckpoint(&self, pages: u32) -> Result<()> {
        // Cached like the rows' statements: a run's start and end each set it twice.
        let set = |conn: &Connection| -> rusqlite::Result<()> {
            let mut stmt = conn.prepare_cached(&autocheckpoint_sql(pages))?;
            let mut rows = stmt.query([])?;
            while rows.next()?.is_some() {}
            Ok(())
        };
        set(&self.conn).map_err(|e| self.sql(e))
    }

    /// Compile the statements [`finish_run_with`](Self::finish_run_with) runs for an apply's
    /// rows (artifacts and their contents, patch sets, touched files, decisions, the totals,
    /// the run's end), so that the caller, who waits for the run's end, does not wait for
    /// them too: a job that starts its run on a side thread calls this there. They stay in
    /// the connection's statement cache.
    pub fn prepare_finish(&self) -> Result<()> {
        let compile = |conn: &Connection| -> rusqlite::Result<()> {
            let fixed = [
                contents::KEEP,
                INSERT_ARTIFACT,
                INSERT_PATCH_SET,
                INSERT_TOUCHED,
                INSERT_DECISION,
                UPDATE_TOTALS,
                FINISH_ROW,
            ];
            for sql in fixed {
                conn.prepare_cached(sql)?;
            }
            for table in ["patch_sets", "decisions"] {
                conn.prepare_cached(&next_seq_sql(table))?;
            }
            for pages in [0, WAL_PAGES] {
                conn.prepare_cached(&autocheckpoint_sql(pages))?;
            }
            Ok(())
        };
        compile(&self.conn).map_err(|e| self.sql(e))
    }

    /// `f` with no automatic checkpoint at its commits (see [`Self::checkpoint_if_due`]).
    fn without_autocheckpoint<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.set_autocheckpoint(0)?;
        let out = f(self);
        // Not turning it back on cannot undo what `f` committed, and the next run's start
        // checkpoints when due in any case: `f`'s outcome is the answer.
        let _ = self.set_autocheckpoint(WAL_PAGES);
        out
    }

    /// Fold the WAL back into the database when it holds [`WAL_PAGES`] frames or more that
    /// are not yet in it, as SQLite's automatic checkpoint would at the next commit. Passive:
    /// it never waits for readers, and a checkpoint another process is running (busy) leaves
    /// the fold to it or to the next run. A checkpoint copies pages the WAL already made
    /// durable; a row is never at stake.
    pub(crate) fn checkpoint_if_due(&self) -> Result<()> {
        let (log, done) = self.wal_frames()?;
        if log - done < i64::from(WAL_PAGES) {
            return Ok(());
        }
        let res = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        match res {
            Ok(()) => Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) =>
            {
                Ok(())
            }
            Err(e) => Err(self.sql(e)),
        }
    }

    /// Frames in the WAL, and how many of them the database already holds (SQLite's
    /// no-op checkpoint only reads the WAL's index). `(-1, -1)` outside WAL mode.
    pub fn wal_frames(&self) -> Result<(i64, i64)> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(NOOP)", [], |r| {
                Ok((r.get(1)?, r.get(2)?))
            })
            .map_err(|e| self.sql(e))
    }

    /// Name each artifact's bytes, storing the large ones as objects before any row names them
    /// (see [`crate::contents`]); the small ones are kept by the transaction that names them.
    fn store_objects<'a>(&self, artifacts: &[(&str, &'a [u8])]) -> Result<Stored<'a>> {
        for (name, _) in artifacts {
            check_artifact_name(name)?;
        }
        let mut stored = Stored::default();
        for (name, bytes) in artifacts {
            let content = self.prepare_content(bytes)?;
            stored.artifacts.push(Artifact {
                name: (*name).to_owned(),
                sha256: content.sha256.clone(),
                size: bytes.len() as u64,
            });
            stored.contents.push(content);
        }
        Ok(stored)
    }

    /// Run `f` inside one immediate transaction, for callers recording many rows at once (an
    /// apply's patch set and decisions): one commit instead of one per row.
    pub(crate) fn in_transaction<T>(
        &mut self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T> {
        let path = self.layout.db.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let out = f(&tx).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(out)
    }
}

fn check_artifact_name(name: &str) -> Result<()> {
    if name.is_empty() || name.contains(['/', '\\', '\n']) {
        return Err(StoreError::Invalid(format!(
            "`{name}` is not an artifact name"
        )));
    }
    Ok(())
}

/// Insert a new `running` run owned by this process; returns its id.
fn insert_run(
    conn: &Connection,
    new: &NewRun,
    command: &str,
    budgets: Option<&str>,
) -> rusqlite::Result<String> {
    let me = ProcessId::current();
    // Prepared once per connection: a long-lived process keeps it (see `pool`).
    let mut stmt = conn.prepare_cached(
        "INSERT INTO runs (id, kind, command, baseline, checkpoint, started_ms, status, \
         budgets, pid, pid_start) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    loop {
        let now = Timestamp::now();
        let id = new_run_id(now);
        let res = stmt.execute(params![
            id,
            new.kind.as_str(),
            command,
            new.baseline,
            new.checkpoint,
            now.0,
            status::RUNNING,
            budgets,
            me.pid,
            me.start
        ]);
        match res {
            Ok(_) => return Ok(id),
            // Two ids drawn in the same millisecond with the same random part: draw again.
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == ErrorCode::ConstraintViolation => {}
            Err(e) => return Err(e),
        }
    }
}

fn finished_budgets(finish: &Finish) -> Result<Option<String>> {
    if finish.status.trim().is_empty() {
        return Err(StoreError::Invalid(
            "a finished run needs a status".to_owned(),
        ));
    }
    finish.budgets.as_ref().map(json).transpose()
}

/// Set a run's outcome; returns how many runs it changed (0 for an unknown id).
fn finish_row(
    conn: &Connection,
    run: &str,
    finish: &Finish,
    budgets: Option<&str>,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(FINISH_ROW)?.execute(params![
        run,
        finish.status,
        finish.message,
        Timestamp::now().0,
        finish.baseline,
        finish.checkpoint,
        budgets
    ])
}

/// Artifacts named and, when large, already stored as objects: what their rows need.
#[derive(Default)]
struct Stored<'a> {
    artifacts: Vec<Artifact>,
    contents: Vec<Content<'a>>,
}

impl Stored<'_> {
    /// The artifacts' rows and their small contents, in the caller's transaction.
    fn insert(&self, tx: &Connection, run: &str) -> rusqlite::Result<()> {
        for content in &self.contents {
            contents::keep(tx, content)?;
        }
        for a in &self.artifacts {
            insert_artifact(tx, run, a)?;
        }
        Ok(())
    }
}

/// A batch's rows, its artifacts named (see [`Stored`]).
fn batch_rows(
    tx: &Connection,
    run: &str,
    stored: &Stored<'_>,
    batch: &Batch<'_>,
) -> rusqlite::Result<()> {
    stored.insert(tx, run)?;
    for p in &batch.patch_sets {
        let seq = next_seq(tx, "patch_sets", run)?;
        insert_patch_set(tx, run, seq, p)?;
    }
    for a in &batch.attempts {
        let seq = next_seq(tx, "attempts", run)?;
        insert_attempt(tx, run, seq, a)?;
    }
    for d in &batch.decisions {
        let seq = next_seq(tx, "decisions", run)?;
        insert_decision(tx, run, seq, d)?;
    }
    update_totals(tx, run)
}

pub(crate) fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Invalid(format!("encoding JSON: {e}")))
}

fn json_sql<T: serde::Serialize + ?Sized>(value: &T) -> rusqlite::Result<String> {
    serde_json::to_string(value).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

const FINISH_ROW: &str = "UPDATE runs SET status = ?2, message = ?3, ended_ms = ?4, \
     baseline = coalesce(?5, baseline), checkpoint = coalesce(?6, checkpoint), \
     budgets = coalesce(?7, budgets) WHERE id = ?1";
const INSERT_ARTIFACT: &str =
    "INSERT OR REPLACE INTO artifacts (run_id, name, sha256, size) VALUES (?1, ?2, ?3, ?4)";
const INSERT_PATCH_SET: &str = "INSERT INTO patch_sets (run_id, seq, baseline, diff_sha256, \
     rationale, format, status, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
const INSERT_TOUCHED: &str = "INSERT INTO touched_files (run_id, seq, ord, path, old_path, \
     change, added, removed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
const INSERT_DECISION: &str = "INSERT INTO decisions (run_id, seq, chosen, alternatives, \
     confidence, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const UPDATE_TOTALS: &str = "UPDATE runs SET (files, added, removed) = \
     (SELECT count(DISTINCT t.path), coalesce(sum(t.added), 0), coalesce(sum(t.removed), 0) \
      FROM touched_files t JOIN patch_sets p ON p.run_id = t.run_id AND p.seq = t.seq \
      WHERE t.run_id = ?1 AND p.status = 'applied') \
     WHERE id = ?1";

/// The statement cache is keyed on a statement's text: these build the same text for
/// [`next_seq`] and [`Store::prepare_finish`].
fn next_seq_sql(table: &str) -> String {
    format!("SELECT max(seq) FROM {table} WHERE run_id = ?1")
}

fn autocheckpoint_sql(pages: u32) -> String {
    format!("PRAGMA wal_autocheckpoint = {pages}")
}

pub(crate) fn next_seq(conn: &Connection, table: &str, run: &str) -> rusqlite::Result<u32> {
    // Cached: an apply asks once per patch set and decision.
    let max: Option<u32> = conn
        .prepare_cached(&next_seq_sql(table))?
        .query_row([run], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(max.unwrap_or(0) + 1)
}

pub(crate) fn insert_artifact(
    conn: &Connection,
    run: &str,
    artifact: &Artifact,
) -> rusqlite::Result<()> {
    conn.prepare_cached(INSERT_ARTIFACT)?.execute(params![
        run,
        artifact.name,
        artifact.sha256,
        i64::try_from(artifact.size).unwrap_or(i64::MAX)
    ])?;
    Ok(())
}

pub(crate) fn insert_patch_set(
    conn: &Connection,
    run: &str,
    seq: u32,
    p: &PatchSet,
) -> rusqlite::Result<()> {
    conn.prepare_cached(INSERT_PATCH_SET)?.execute(params![
        run,
        seq,
        p.baseline,
        p.diff_sha256,
        p.rationale,
        p.format,
        p.status.as_str(),
        p.reason
    ])?;
    let mut stmt = conn.prepare_cached(INSERT_TOUCHED)?;
    for (ord, f) in p.files.iter().enumerate() {
        stmt.execute(params![
            run,
            seq,
            ord as i64,
            f.path,
            f.old_path,
            f.change.as_str(),
            f.added as i64,
            f.removed as i64
        ])?;
    }
    Ok(())
}

pub(crate) fn insert_attempt(
    conn: &Connection,
    run: &str,
    seq: u32,
    a: &Attempt,
) -> rusqlite::Result<()> {
    let opt_i64 = |v: Option<u64>| v.map(|v| i64::try_from(v).unwrap_or(i64::MAX));
    conn.prepare_cached(
        "INSERT INTO attempts (run_id, seq, patch_set, started_ms, check_command, exit_code, \
         failure_class, duration_ms, provider, model, tokens_in, tokens_out, cost_usd, \
         latency_ms, log_artifact) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        run,
        seq,
        a.patch_set,
        a.started_at.map(|t| t.0),
        a.check_command,
        a.exit_code,
        a.failure_class,
        opt_i64(a.duration_ms),
        a.provider,
        a.model,
        opt_i64(a.tokens_in),
        opt_i64(a.tokens_out),
        a.cost_usd,
        opt_i64(a.latency_ms),
        a.log_artifact
    ])?;
    Ok(())
}

pub(crate) fn insert_decision(
    conn: &Connection,
    run: &str,
    seq: u32,
    d: &Decision,
) -> rusqlite::Result<()> {
    conn.prepare_cached(INSERT_DECISION)?.execute(params![
        run,
        seq,
        d.chosen,
        json_sql(&d.alternatives)?,
        d.confidence,
        d.evidence
    ])?;
    Ok(())
}

/// Recompute the run's totals (files, lines added and removed) over its patch sets that were not
/// rejected; listings read these instead of joining.
pub(crate) fn update_totals(conn: &Connection, run: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(UPDATE_TOTALS)?.execute([run])?;
    Ok(())
}
