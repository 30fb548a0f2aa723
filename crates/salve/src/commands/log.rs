//! `salve log`: one line per recorded run, newest first (id, time, kind, status, files touched,
//! lines added and removed, the first paths). Also the helpers the other record commands share:
//! opening the record and turning its errors into CLI errors.

use std::io::Write as _;
use std::path::PathBuf;

use salve_store::time::parse_point;
use salve_store::{LogQuery, RunKind, RunSummary, Store, StoreError, Timestamp};

use crate::cli::Global;
use crate::error::{CliError, Kind};

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// Show at most N runs (0 for all)
    #[arg(long, short = 'n', value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Only runs with this status (applied, refused, checked, interrupted, running, error, ...)
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,
    /// Only runs of this kind: apply, ask or fix
    #[arg(long, value_name = "KIND", value_parser = parse_kind)]
    pub kind: Option<RunKind>,
    /// Only runs started since: a duration back from now (30m, 12h, 7d, 2w) or a UTC date
    /// (2026-11-21, 2026-11-21T09:14)
    #[arg(long, value_name = "DUR|DATE", value_parser = parse_since)]
    pub since: Option<Timestamp>,
}

pub fn run(global: &Global, args: &LogArgs) -> Result<u8, CliError> {
    let Some(store) = open_existing(global)? else {
        if global.json {
            write_out("[]\n")?;
        } else if !global.quiet {
            let layout = salve_store::Layout::locate(&work_dir(global));
            if layout.in_git || layout.dir.is_dir() {
                eprintln!("no runs recorded yet; every `salve apply` records one");
            } else {
                eprintln!(
                    "no record here: outside a git repository salve records runs only where a \
                     .salve/ directory exists (create one to start)"
                );
            }
        }
        return Ok(0);
    };
    let query = LogQuery {
        limit: (args.limit > 0).then_some(args.limit),
        status: args.status.clone(),
        since: args.since,
        kind: args.kind,
    };
    let runs = store.list(&query).map_err(store_error)?;
    if global.json {
        let text = serde_json::to_string_pretty(&runs)
            .map_err(|e| CliError::internal(format!("encoding the listing: {e}")))?;
        return write_out(&format!("{text}\n")).map(|()| 0);
    }
    if global.quiet {
        return Ok(0);
    }
    write_out(&render(&runs))?;
    Ok(0)
}

/// The listing, one line per run, columns aligned within the page.
pub fn render(runs: &[RunSummary]) -> String {
    let id_w = runs.iter().map(|r| r.short_id.len()).max().unwrap_or(7);
    let status_w = runs
        .iter()
        .map(|r| r.run.status.len())
        .max()
        .unwrap_or(0)
        .max(7);
    let mut out = String::new();
    for r in runs {
        let files = match r.run.files {
            1 => "1 file".to_owned(),
            n => format!("{n} files"),
        };
        let lines = format!("+{} -{}", r.run.added, r.run.removed);
        out.push_str(&format!(
            "{:<id_w$}  {}  {:<5}  {:<status_w$}  {:>8}  {:>11}  {}",
            r.short_id,
            r.run.started_at.to_short(),
            r.run.kind.as_str(),
            r.run.status,
            files,
            lines,
            paths(&r.paths)
        ));
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push('\n');
    }
    out
}

/// The first paths, then how many more.
fn paths(paths: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut text = paths
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        text.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    text
}

fn parse_kind(text: &str) -> Result<RunKind, String> {
    RunKind::parse(text).ok_or_else(|| format!("`{text}` is not a run kind: apply, ask or fix"))
}

fn parse_since(text: &str) -> Result<Timestamp, String> {
    parse_point(text, Timestamp::now()).ok_or_else(|| {
        format!("`{text}` is neither a duration (30m, 12h, 7d, 2w) nor a date (2026-11-21)")
    })
}

/// The directory salve works in: `-C DIR` or the current one.
pub(crate) fn work_dir(global: &Global) -> PathBuf {
    global.dir.clone().unwrap_or_else(|| PathBuf::from("."))
}

/// The record, created when missing.
pub(crate) fn open(global: &Global) -> Result<Store, CliError> {
    Store::open(&work_dir(global)).map_err(store_error)
}

/// The record if there is one; reading an empty history creates nothing.
pub(crate) fn open_existing(global: &Global) -> Result<Option<Store>, CliError> {
    let dir = work_dir(global);
    if !dir.is_dir() {
        return Err(CliError::user(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    Store::open_existing(&dir).map_err(store_error)
}

/// A run id or prefix to the full id; no record at all reads as no such run.
pub(crate) fn resolve(store: Option<&Store>, run: &str) -> Result<String, CliError> {
    match store {
        Some(store) => store.resolve(run).map_err(store_error),
        None => Err(store_error(StoreError::NoSuchRun(run.to_owned()))),
    }
}

/// Bad ids and input are usage errors; a broken or too new record is an environment error.
pub(crate) fn store_error(e: StoreError) -> CliError {
    let kind = if e.is_user_error() {
        Kind::User
    } else {
        Kind::Config
    };
    CliError {
        kind,
        hint: e.hint(),
        message: e.to_string(),
    }
}

/// Write to stdout; a closed pipe (`salve log | head`) is not an error.
pub(crate) fn write_out(text: &str) -> Result<(), CliError> {
    write_bytes(text.as_bytes())
}

pub(crate) fn write_bytes(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::user(format!("cannot write to stdout: {e}"))),
    }
}
