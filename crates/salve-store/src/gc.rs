//! `salve gc`: prune runs older than an age, then remove the artifacts no remaining run
//! references and temporary files left by interrupted writes.
//!
//! Objects younger than the grace period are kept even when unreferenced: another process may
//! have just stored one and not yet recorded the row that references it. Runs still in progress
//! are never pruned.

use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use rusqlite::params;
use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::liveness::ProcessId;
use crate::model::status;
use crate::time::Timestamp;
use crate::Store;

/// What to collect.
#[derive(Clone, Debug, PartialEq)]
pub struct GcOptions {
    /// Prune runs started more than this many milliseconds before `now`; `None` keeps every run.
    pub older_than_ms: Option<i64>,
    pub now: Timestamp,
    /// Unreferenced objects and temporary files younger than this are kept.
    pub grace: Duration,
}

impl Default for GcOptions {
    fn default() -> Self {
        GcOptions {
            older_than_ms: None,
            now: Timestamp::now(),
            grace: Duration::from_secs(3600),
        }
    }
}

/// What a collection removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GcStats {
    pub runs_pruned: usize,
    pub objects_removed: usize,
    pub bytes_freed: u64,
    pub temp_files_removed: usize,
    pub objects_kept: usize,
}

impl Store {
    pub fn gc(&mut self, options: &GcOptions) -> Result<GcStats> {
        let mut stats = GcStats::default();
        if let Some(age) = options.older_than_ms {
            let cutoff = options.now.0.saturating_sub(age);
            stats.runs_pruned = self.prune_runs(cutoff)?;
        }
        let referenced: HashSet<String> = self
            .strings(
                "SELECT sha256 FROM artifacts UNION \
                 SELECT diff_sha256 FROM patch_sets WHERE diff_sha256 IS NOT NULL",
            )?
            .into_iter()
            .collect();
        let young = |mtime: Option<SystemTime>| {
            mtime.is_none_or(|m| {
                SystemTime::now()
                    .duration_since(m)
                    .is_ok_and(|age| age < options.grace)
                    || m > SystemTime::now()
            })
        };
        for file in self.objects.scan()? {
            let (path, mtime) = (&file.path, file.mtime);
            match file.sha {
                Some(sha) if referenced.contains(&sha) => stats.objects_kept += 1,
                _ if young(mtime) => stats.objects_kept += 1,
                Some(_) => {
                    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                    remove(path)?;
                    stats.objects_removed += 1;
                    stats.bytes_freed += size;
                }
                None => {
                    remove(path)?;
                    stats.temp_files_removed += 1;
                }
            }
        }
        let (rows, bytes, kept) = crate::contents::collect(&self.conn).map_err(|e| self.sql(e))?;
        stats.objects_removed += rows;
        stats.bytes_freed += bytes;
        stats.objects_kept += kept;
        // Empty fan-out directories go too; a failure (not empty, a race) is fine.
        if let Ok(rd) = std::fs::read_dir(self.objects.dir()) {
            for entry in rd.flatten() {
                let _ = std::fs::remove_dir(entry.path());
            }
        }
        // Records are closed without a checkpoint (see `schema`): fold the WAL in here.
        let _ = self
            .conn
            .execute_batch("PRAGMA optimize; PRAGMA wal_checkpoint(TRUNCATE);");
        Ok(stats)
    }

    fn prune_runs(&mut self, cutoff: i64) -> Result<usize> {
        // Unfinished runs go only when their process is gone.
        let unfinished: Vec<(String, Option<u32>, Option<i64>)> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT id, pid, pid_start FROM runs \
                     WHERE started_ms < ?1 AND status = ?2 AND ended_ms IS NULL",
                )
                .map_err(|e| self.sql(e))?;
            let rows = stmt
                .query_map(params![cutoff, status::RUNNING], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .map_err(|e| self.sql(e))?;
            rows.collect::<rusqlite::Result<_>>()
                .map_err(|e| self.sql(e))?
        };
        let dead: Vec<String> = unfinished
            .into_iter()
            .filter(|(_, pid, start)| {
                !pid.is_some_and(|pid| ProcessId { pid, start: *start }.is_alive())
            })
            .map(|(id, _, _)| id)
            .collect();
        self.in_transaction(|tx| {
            let mut n = tx.execute(
                "DELETE FROM runs WHERE started_ms < ?1 \
                 AND NOT (status = ?2 AND ended_ms IS NULL)",
                params![cutoff, status::RUNNING],
            )?;
            for id in &dead {
                n += tx.execute("DELETE FROM runs WHERE id = ?1", [id])?;
            }
            Ok(n)
        })
    }
}

fn remove(path: &std::path::Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StoreError::io(format!("removing {}", path.display()), e)),
    }
}
