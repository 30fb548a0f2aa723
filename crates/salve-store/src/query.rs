//! Reading the record: the newest-first listing behind `salve log`, id prefixes, and a whole run
//! for `salve show`. A `running` run whose process is gone reads as `interrupted`; reads never
//! write.

use rusqlite::{params, Connection, OptionalExtension as _, Row};

use crate::error::{Result, StoreError};
use crate::id::{normalize_prefix, unique_prefix};
use crate::liveness::ProcessId;
use crate::model::{
    status, Artifact, Attempt, Decision, FileChange, PatchSet, PatchStatus, Run, RunKind,
    RunRecord, RunSummary, TouchedFile, Usage,
};
use crate::time::Timestamp;
use crate::Store;

/// Which runs `salve log` lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogQuery {
    /// At most this many runs; `None` for all.
    pub limit: Option<usize>,
    /// Only runs with this status (`interrupted` and `running` as they read now).
    pub status: Option<String>,
    /// Only runs started at or after this time.
    pub since: Option<Timestamp>,
    /// Only runs of this kind.
    pub kind: Option<RunKind>,
    /// Only runs older than this run id (keyset paging: the last id of the previous page).
    pub before: Option<String>,
    /// Sum up each run's attempts into [`RunSummary::usage`].
    pub usage: bool,
    /// Only runs whose command, status or message holds this text, or that touched a path
    /// holding it (case-insensitive for ASCII). A search reads every run older than `before`
    /// until a page is full: its cost grows with how rare the text is, unlike the other filters.
    pub search: Option<String>,
}

const RUN_COLUMNS: &str = "id, kind, command, baseline, checkpoint, started_ms, ended_ms, status, \
                           message, budgets, files, added, removed, pid, pid_start, rewound_by";

impl Store {
    /// Runs matching `query`, newest first.
    pub fn list(&self, query: &LogQuery) -> Result<Vec<RunSummary>> {
        // `running` and `interrupted` are both stored as `running`; which one a run is depends
        // on its process, so those are filtered after reading.
        let live_filter = query
            .status
            .as_deref()
            .filter(|s| *s == status::RUNNING || *s == status::INTERRUPTED);
        let stored_status = match (&query.status, live_filter) {
            (_, Some(_)) => Some(status::RUNNING.to_owned()),
            (s, None) => s.clone(),
        };
        let mut sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE 1 = 1");
        let mut args: Vec<rusqlite::types::Value> = Vec::new();
        match stored_status {
            Some(s) if s == status::REWOUND => sql.push_str(" AND rewound_by IS NOT NULL"),
            Some(s) => {
                args.push(s.into());
                sql.push_str(&format!(" AND status = ?{}", args.len()));
            }
            None => {}
        }
        if let Some(before) = &query.before {
            args.push(before.clone().into());
            sql.push_str(&format!(" AND id < ?{}", args.len()));
        }
        if let Some(since) = query.since {
            args.push(since.0.into());
            sql.push_str(&format!(" AND started_ms >= ?{}", args.len()));
        }
        if let Some(kind) = query.kind {
            args.push(kind.as_str().to_owned().into());
            sql.push_str(&format!(" AND kind = ?{}", args.len()));
        }
        if let Some(text) = query.search.as_deref().filter(|t| !t.trim().is_empty()) {
            let escaped = text
                .trim()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            args.push(format!("%{escaped}%").into());
            let n = args.len();
            sql.push_str(&format!(
                " AND (command LIKE ?{n} ESCAPE '\\' OR status LIKE ?{n} ESCAPE '\\' \
                 OR message LIKE ?{n} ESCAPE '\\' OR EXISTS (SELECT 1 FROM touched_files t \
                 WHERE t.run_id = runs.id AND t.path LIKE ?{n} ESCAPE '\\'))"
            ));
        }
        sql.push_str(" ORDER BY id DESC");
        if let (Some(limit), None) = (query.limit, live_filter) {
            sql.push_str(&format!(" LIMIT {limit}"));
        }
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), run_from_row)
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        for row in rows {
            let run = row.map_err(|e| self.sql(e))?;
            if live_filter.is_some_and(|want| run.status != want) {
                continue;
            }
            if query.limit.is_some_and(|l| out.len() >= l) {
                break;
            }
            out.push(run);
        }
        out.into_iter()
            .map(|run| {
                let short_id = self.short_id(&run.id)?;
                let paths = self.paths(&run.id)?;
                let usage = if query.usage {
                    Some(self.usage(&run.id)?)
                } else {
                    None
                };
                Ok(RunSummary {
                    run,
                    short_id,
                    paths,
                    usage,
                })
            })
            .collect()
    }

    /// The run that took each of `checkpoints` (ids as runs record them), as pairs of
    /// checkpoint and run id; checkpoints no run took are left out.
    pub fn runs_by_checkpoint(&self, checkpoints: &[String]) -> Result<Vec<(String, String)>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM runs WHERE checkpoint = ?1 ORDER BY id LIMIT 1")
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        for c in checkpoints {
            let run: Option<String> = stmt
                .query_row([c], |r| r.get(0))
                .optional()
                .map_err(|e| self.sql(e))?;
            if let Some(run) = run {
                out.push((c.clone(), run));
            }
        }
        Ok(out)
    }

    /// The ids of `run` and every later run not rewound yet, oldest first: what a rewind to
    /// `run` would mark.
    pub fn runs_from(&self, run: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM runs WHERE id >= ?1 AND rewound_by IS NULL ORDER BY id")
            .map_err(|e| self.sql(e))?;
        let ids = stmt
            .query_map([run], |r| r.get(0))
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        Ok(ids)
    }

    /// A fingerprint of the listing: it moves when a run starts, finishes, or is rewound or
    /// brought back.
    pub fn stamp(&self) -> Result<String> {
        // A counter the schema's triggers move on every write to the runs and what is listed
        // with them: one row read, so a page polling every second costs the same on ten runs
        // and on a hundred thousand.
        self.conn
            .prepare_cached("SELECT n FROM changes WHERE id = 1")
            .and_then(|mut stmt| stmt.query_row([], |r| r.get::<_, i64>(0)))
            .map(|n| format!("{n:x}"))
            .map_err(|e| self.sql(e))
    }

    /// The number of runs recorded.
    pub fn count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| self.sql(e))
    }

    /// The full id of the run that `prefix` names.
    pub fn resolve(&self, prefix: &str) -> Result<String> {
        let p = normalize_prefix(prefix).ok_or_else(|| StoreError::BadRunId(prefix.to_owned()))?;
        // Every id is lowercase hex, and 'g' sorts after every hex digit.
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM runs WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT 4")
            .map_err(|e| self.sql(e))?;
        let ids: Vec<String> = stmt
            .query_map(params![p, format!("{p}g")], |r| r.get(0))
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        match ids.len() {
            0 => Err(StoreError::NoSuchRun(prefix.to_owned())),
            1 => Ok(ids.into_iter().next().unwrap_or_default()),
            _ => {
                let count: i64 = self
                    .conn
                    .query_row(
                        "SELECT count(*) FROM runs WHERE id >= ?1 AND id < ?2",
                        params![p, format!("{p}g")],
                        |r| r.get(0),
                    )
                    .map_err(|e| self.sql(e))?;
                Err(StoreError::AmbiguousRun {
                    prefix: prefix.to_owned(),
                    count: usize::try_from(count).unwrap_or(0),
                    examples: ids.into_iter().take(3).collect(),
                })
            }
        }
    }

    /// The shortest prefix that names `id` alone.
    pub fn short_id(&self, id: &str) -> Result<String> {
        let neighbour = |sql: &str| -> Result<Option<String>> {
            self.conn
                .prepare_cached(sql)
                .and_then(|mut s| s.query_row([id], |r| r.get(0)))
                .map_err(|e| self.sql(e))
        };
        let before = neighbour("SELECT max(id) FROM runs WHERE id < ?1")?;
        let after = neighbour("SELECT min(id) FROM runs WHERE id > ?1")?;
        Ok(unique_prefix(id, before.as_deref(), after.as_deref()))
    }

    /// The run with its patch sets, attempts, decisions and artifacts.
    pub fn record(&self, id: &str) -> Result<RunRecord> {
        let run = self
            .conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
                [id],
                run_from_row,
            )
            .optional()
            .map_err(|e| self.sql(e))?
            .ok_or_else(|| StoreError::NoSuchRun(id.to_owned()))?;
        let conn = &self.conn;
        let patch_sets = patch_sets(conn, id).map_err(|e| self.sql(e))?;
        let attempts = attempts(conn, id).map_err(|e| self.sql(e))?;
        let decisions = decisions(conn, id).map_err(|e| self.sql(e))?;
        let artifacts = artifacts(conn, id).map_err(|e| self.sql(e))?;
        Ok(RunRecord {
            run,
            patch_sets,
            attempts,
            decisions,
            artifacts,
        })
    }

    /// The bytes of the run's artifact `name`.
    pub fn artifact(&self, run: &str, name: &str) -> Result<Vec<u8>> {
        let sha: Option<String> = self
            .conn
            .query_row(
                "SELECT sha256 FROM artifacts WHERE run_id = ?1 AND name = ?2",
                [run, name],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sql(e))?;
        let sha = sha.ok_or_else(|| StoreError::NoSuchArtifact {
            run: run.to_owned(),
            name: name.to_owned(),
        })?;
        self.content(&sha)
    }

    /// The attempts of `run` summed up: count, tokens, cost, and the last provider and model.
    fn usage(&self, run: &str) -> Result<Usage> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT count(*), coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0), \
                 sum(cost_usd), \
                 (SELECT provider FROM attempts WHERE run_id = ?1 AND provider IS NOT NULL \
                  ORDER BY seq DESC LIMIT 1), \
                 (SELECT model FROM attempts WHERE run_id = ?1 AND model IS NOT NULL \
                  ORDER BY seq DESC LIMIT 1), \
                 count(provider), count(check_command) \
                 FROM attempts WHERE run_id = ?1",
            )
            .map_err(|e| self.sql(e))?;
        stmt.query_row([run], |r| {
            Ok(Usage {
                attempts: as_u64(r.get(0)?).unwrap_or(0),
                tokens_in: as_u64(r.get(1)?).unwrap_or(0),
                tokens_out: as_u64(r.get(2)?).unwrap_or(0),
                cost_usd: r.get(3)?,
                provider: r.get(4)?,
                model: r.get(5)?,
                calls: as_u64(r.get(6)?).unwrap_or(0),
                checks: as_u64(r.get(7)?).unwrap_or(0),
            })
        })
        .map_err(|e| self.sql(e))
    }

    /// Touched paths in order without repeats: those of patch sets that were not rejected, or,
    /// for a run whose every patch set was rejected, the rejected ones.
    fn paths(&self, run: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT t.path, p.status FROM touched_files t JOIN patch_sets p \
                 ON p.run_id = t.run_id AND p.seq = t.seq WHERE t.run_id = ?1 \
                 ORDER BY t.seq, t.ord",
            )
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(String, String)> = stmt
            .query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sql(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sql(e))?;
        let any_kept = rows.iter().any(|(_, s)| s != "rejected");
        let mut out: Vec<String> = Vec::new();
        for (path, s) in rows {
            if (s != "rejected" || !any_kept) && !out.contains(&path) {
                out.push(path);
            }
        }
        Ok(out)
    }
}

fn bad_value(col: usize, what: &str, value: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        col,
        rusqlite::types::Type::Text,
        format!("unknown {what} `{value}`").into(),
    )
}

fn from_json<T: serde::de::DeserializeOwned>(col: usize, text: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(col, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn as_u64(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

fn run_from_row(r: &Row<'_>) -> rusqlite::Result<Run> {
    let kind: String = r.get(1)?;
    let command: String = r.get(2)?;
    let budgets: Option<String> = r.get(9)?;
    let mut status: String = r.get(7)?;
    let ended: Option<i64> = r.get(6)?;
    if status == status::RUNNING && ended.is_none() {
        let pid: Option<u32> = r.get(13)?;
        let start: Option<i64> = r.get(14)?;
        let alive = pid.is_some_and(|pid| ProcessId { pid, start }.is_alive());
        if !alive {
            status = status::INTERRUPTED.to_owned();
        }
    }
    Ok(Run {
        id: r.get(0)?,
        kind: RunKind::parse(&kind).ok_or_else(|| bad_value(1, "run kind", &kind))?,
        command: from_json(2, &command)?,
        baseline: r.get(3)?,
        checkpoint: r.get(4)?,
        started_at: Timestamp(r.get(5)?),
        ended_at: ended.map(Timestamp),
        status,
        message: r.get(8)?,
        budgets: budgets.as_deref().map(|b| from_json(9, b)).transpose()?,
        files: as_u64(r.get(10)?).unwrap_or(0),
        added: as_u64(r.get(11)?).unwrap_or(0),
        removed: as_u64(r.get(12)?).unwrap_or(0),
        rewound_by: r.get(15)?,
    })
}

fn patch_sets(conn: &Connection, run: &str) -> rusqlite::Result<Vec<PatchSet>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, baseline, diff_sha256, rationale, format, status, reason FROM patch_sets \
         WHERE run_id = ?1 ORDER BY seq",
    )?;
    let mut sets = stmt
        .query_map([run], |r| {
            let status: String = r.get(5)?;
            Ok(PatchSet {
                seq: r.get(0)?,
                baseline: r.get(1)?,
                diff_sha256: r.get(2)?,
                files: Vec::new(),
                rationale: r.get(3)?,
                format: r.get(4)?,
                status: PatchStatus::parse(&status)
                    .ok_or_else(|| bad_value(5, "patch status", &status))?,
                reason: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT seq, path, old_path, change, added, removed FROM touched_files \
         WHERE run_id = ?1 ORDER BY seq, ord",
    )?;
    let files = stmt.query_map([run], |r| {
        let change: String = r.get(3)?;
        Ok((
            r.get::<_, u32>(0)?,
            TouchedFile {
                path: r.get(1)?,
                old_path: r.get(2)?,
                change: FileChange::parse(&change)
                    .ok_or_else(|| bad_value(3, "change", &change))?,
                added: as_u64(r.get(4)?).unwrap_or(0),
                removed: as_u64(r.get(5)?).unwrap_or(0),
            },
        ))
    })?;
    for f in files {
        let (seq, file) = f?;
        if let Some(set) = sets.iter_mut().find(|s| s.seq == seq) {
            set.files.push(file);
        }
    }
    Ok(sets)
}

fn attempts(conn: &Connection, run: &str) -> rusqlite::Result<Vec<Attempt>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, patch_set, started_ms, check_command, exit_code, failure_class, \
         duration_ms, provider, model, tokens_in, tokens_out, cost_usd, latency_ms, log_artifact \
         FROM attempts WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok(Attempt {
            seq: r.get(0)?,
            patch_set: r.get(1)?,
            started_at: r.get::<_, Option<i64>>(2)?.map(Timestamp),
            check_command: r.get(3)?,
            exit_code: r.get(4)?,
            failure_class: r.get(5)?,
            duration_ms: as_u64(r.get(6)?),
            provider: r.get(7)?,
            model: r.get(8)?,
            tokens_in: as_u64(r.get(9)?),
            tokens_out: as_u64(r.get(10)?),
            cost_usd: r.get(11)?,
            latency_ms: as_u64(r.get(12)?),
            log_artifact: r.get(13)?,
        })
    })?;
    rows.collect()
}

fn decisions(conn: &Connection, run: &str) -> rusqlite::Result<Vec<Decision>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, chosen, alternatives, confidence, evidence FROM decisions \
         WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = stmt.query_map([run], |r| {
        let alternatives: String = r.get(2)?;
        Ok(Decision {
            seq: r.get(0)?,
            chosen: r.get(1)?,
            alternatives: from_json(2, &alternatives)?,
            confidence: r.get(3)?,
            evidence: r.get(4)?,
        })
    })?;
    rows.collect()
}

fn artifacts(conn: &Connection, run: &str) -> rusqlite::Result<Vec<Artifact>> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, sha256, size FROM artifacts WHERE run_id = ?1 ORDER BY name",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok(Artifact {
            name: r.get(0)?,
            sha256: r.get(1)?,
            size: as_u64(r.get(2)?).unwrap_or(0),
        })
    })?;
    rows.collect()
}
