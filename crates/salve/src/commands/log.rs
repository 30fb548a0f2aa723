//! `salve log`: one line per recorded run, newest first (id, time, kind, status, files touched,
//! lines added and removed, the first paths).

use salve_engine::record::{
    log, parse_point, LogOptions, RecordState, RunKind, RunSummary, Timestamp, STATUSES,
};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{print_json_pretty, print_text};
use crate::style::Paint;

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// Show at most N runs (0 for all)
    #[arg(long, short = 'n', value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Only runs with this status (applied, refused, checked, interrupted, running, error, ...)
    #[arg(long, value_name = "STATUS", value_parser = parse_status)]
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
    let options = LogOptions {
        dir: global.work_dir(),
        limit: (args.limit > 0).then_some(args.limit),
        status: args.status.clone(),
        kind: args.kind,
        since: args.since,
        ..LogOptions::default()
    };
    let outcome = log(&options).map_err(failed)?;
    if global.json {
        return print_json_pretty(&outcome).map(|()| 0);
    }
    if global.quiet {
        return Ok(0);
    }
    match outcome.record {
        RecordState::Kept => print_text(&render(&outcome.runs, Paint::stdout()))?,
        RecordState::Empty => eprintln!("no runs recorded yet; every `salve apply` records one"),
        RecordState::NotKept => eprintln!(
            "no record here: outside a git repository salve records runs only where a \
             .salve/ directory exists (create one to start)"
        ),
    }
    Ok(0)
}

/// The listing, one line per run, columns aligned within the page (padded before painting).
pub fn render(runs: &[RunSummary], paint: Paint) -> String {
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
        let status = format!("{:<status_w$}", r.run.status);
        out.push_str(&format!(
            "{}  {}  {:<5}  {}  {:>8}  {:>11}  {}",
            paint.id(&format!("{:<id_w$}", r.short_id)),
            r.run.started_at.to_short(),
            r.run.kind.as_str(),
            paint.run_status(&r.run.status, &status),
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

fn parse_status(text: &str) -> Result<String, String> {
    if STATUSES.contains(&text) {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "`{text}` is not a run status; one of: {}",
            STATUSES.join(", ")
        ))
    }
}

fn parse_kind(text: &str) -> Result<RunKind, String> {
    RunKind::parse(text).ok_or_else(|| format!("`{text}` is not a run kind: apply, ask or fix"))
}

fn parse_since(text: &str) -> Result<Timestamp, String> {
    parse_point(text, Timestamp::now()).ok_or_else(|| {
        format!("`{text}` is neither a duration (30m, 12h, 7d, 2w) nor a date (2026-11-21)")
    })
}
