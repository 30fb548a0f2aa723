//! `salve checkpoint [-m MSG]` snapshots the work tree and staged state;
//! `salve checkpoint drop ID|--older-than DUR` prunes snapshots.
//!
//! Also the small helpers the other git-safety commands (`checkpoints`, `restore`, `undo`,
//! `commit`) share: finding the repository, sorting library errors into exit codes, and
//! printing paths and ages.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use salve_git::checkpoint::{self, create, drop};
use salve_git::{GitError, Repo};
use serde_json::{json, Value};

use crate::cli::Global;
use crate::error::{CliError, Kind};

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct CheckpointArgs {
    #[command(subcommand)]
    pub action: Option<CheckpointAction>,
    /// A note shown by `salve checkpoints`
    #[arg(short, long, value_name = "MSG")]
    pub message: Option<String>,
    /// Skip untracked files larger than this (bytes, or with a K, M or G suffix)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "10M")]
    pub max_file_size: u64,
}

#[derive(Debug, clap::Subcommand)]
pub enum CheckpointAction {
    /// Delete a checkpoint, or all older than a duration
    Drop(DropArgs),
}

#[derive(Debug, clap::Args)]
pub struct DropArgs {
    /// The checkpoint id (or a unique prefix)
    #[arg(value_name = "ID", required_unless_present = "older_than")]
    pub id: Option<String>,
    /// Delete every checkpoint older than this: 30m, 12h, 7d, 2w, 1d12h
    #[arg(long, value_name = "DUR", conflicts_with = "id", value_parser = parse_age)]
    pub older_than: Option<Duration>,
}

pub fn run(global: &Global, args: &CheckpointArgs) -> Result<u8, CliError> {
    let repo = open_repo(global)?;
    if let Some(CheckpointAction::Drop(drop_args)) = &args.action {
        return run_drop(global, &repo, drop_args);
    }
    let options = create::Options {
        message: args.message.clone(),
        limits: limits(args.max_file_size),
        ..create::Options::default()
    };
    let taken = checkpoint::create(&repo, &options).map_err(|e| match e {
        create::Error::Git(e) => git_error(e),
        other => CliError::internal(other),
    })?;
    report_skipped(global, &taken.skipped);
    if global.json {
        print_json(&created_json(&taken))?;
    } else if !global.quiet {
        print_text(&format!("checkpoint {}\n", taken.id))?;
    }
    Ok(0)
}

fn run_drop(global: &Global, repo: &Repo, args: &DropArgs) -> Result<u8, CliError> {
    let selection = match (&args.id, args.older_than) {
        (Some(id), _) => drop::Selection::Id(id.clone()),
        (None, Some(age)) => drop::Selection::OlderThan(age),
        (None, None) => return Err(CliError::user("name a checkpoint or pass --older-than")),
    };
    let outcome = checkpoint::drop(repo, &selection).map_err(|e| match e {
        drop::Error::Git(e) => git_error(e),
        drop::Error::Find(e) => find_error(e),
    })?;
    if global.json {
        let ids: Vec<&str> = outcome.dropped.iter().map(|c| c.id.as_str()).collect();
        print_json(&json!({ "dropped": ids }))?;
    } else if !global.quiet {
        let mut text = String::new();
        for c in &outcome.dropped {
            text.push_str(&format!("dropped {}\n", c.id));
        }
        if outcome.dropped.is_empty() {
            text.push_str("no checkpoint to drop\n");
        }
        print_text(&text)?;
    }
    Ok(0)
}

pub(crate) fn limits(max_file_size: u64) -> create::Limits {
    create::Limits {
        max_file_bytes: max_file_size,
        ..create::Limits::default()
    }
}

/// The repository at `-C DIR` or the current directory.
pub(crate) fn open_repo(global: &Global) -> Result<Repo, CliError> {
    let dir = global.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    Repo::discover(&dir).map_err(git_error)
}

/// git failures: missing or old git is configuration, the rest is the environment (exit 2).
pub(crate) fn git_error(e: GitError) -> CliError {
    let hint = match &e {
        GitError::NotARepository(_) => Some("run salve inside a git work tree, or pass -C DIR"),
        GitError::NotFound | GitError::TooOld { .. } => Some("install git 2.30 or newer"),
        GitError::IndexLocked(_) => Some("retry when the other git command has finished"),
        _ => None,
    };
    let kind = match &e {
        GitError::NotFound | GitError::TooOld { .. } => Kind::Config,
        _ => Kind::User,
    };
    CliError {
        kind,
        message: e.to_string(),
        hint: hint.map(str::to_owned),
    }
}

pub(crate) fn find_error(e: checkpoint::FindError) -> CliError {
    match e {
        checkpoint::FindError::Git(e) => git_error(e),
        other => CliError::user(other).with_hint("`salve checkpoints` lists the ids"),
    }
}

/// A job that ran and did not succeed: say why (on stderr, and as JSON on stdout with --json)
/// and exit 1.
pub(crate) fn refused(
    global: &Global,
    kind: &str,
    err: &dyn std::fmt::Display,
) -> Result<u8, CliError> {
    if global.json {
        print_json(&json!({ "error": { "kind": kind, "message": err.to_string() } }))?;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "Error: {err}");
    Ok(1)
}

/// Skipped paths are a warning on stderr (data on stdout stays clean).
pub(crate) fn report_skipped(global: &Global, skipped: &[create::Skipped]) {
    if global.quiet || skipped.is_empty() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    for s in skipped {
        let why = match &s.reason {
            create::SkipReason::TooLarge { bytes } => {
                format!(
                    "untracked file of {} over the size limit",
                    human_bytes(*bytes)
                )
            }
            create::SkipReason::LargeDirectory { files, bytes } => format!(
                "untracked directory of {files} files ({}) over the limits",
                human_bytes(*bytes)
            ),
            create::SkipReason::NestedRepository => "nested repository, left alone".to_owned(),
        };
        let _ = writeln!(
            stderr,
            "warning: not in the checkpoint: {} ({why})",
            show(&s.path)
        );
    }
}

pub(crate) fn created_json(taken: &create::Outcome) -> Value {
    json!({
        "id": taken.id,
        "commit": taken.commit,
        "tree": taken.tree,
        "index_tree": taken.index_tree,
        "head": taken.head.commit,
        "branch": taken.head.branch,
        "skipped": taken.skipped.iter().map(skipped_json).collect::<Vec<_>>(),
    })
}

fn skipped_json(s: &create::Skipped) -> Value {
    let mut value = json!({ "path": show(&s.path) });
    match &s.reason {
        create::SkipReason::TooLarge { bytes } => {
            value["reason"] = json!("too_large");
            value["bytes"] = json!(bytes);
        }
        create::SkipReason::LargeDirectory { files, bytes } => {
            value["reason"] = json!("large_directory");
            value["files"] = json!(files);
            value["bytes"] = json!(bytes);
        }
        create::SkipReason::NestedRepository => value["reason"] = json!("nested_repository"),
    }
    value
}

/// A work-tree path for people and JSON (non-UTF-8 bytes shown as U+FFFD).
pub(crate) fn show(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

pub(crate) fn paths_json(paths: &[PathBuf]) -> Value {
    json!(paths.iter().map(|p| show(p)).collect::<Vec<_>>())
}

pub(crate) fn human_bytes(bytes: u64) -> String {
    const UNITS: &[&str] = &["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `5s ago`, `3m ago`, `2h ago`, `4d ago`.
pub(crate) fn age(time: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let secs = (now - time).max(0);
    match secs {
        s if s < 60 => format!("{s}s ago"),
        s if s < 3_600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3_600),
        s => format!("{}d ago", s / 86_400),
    }
}

/// `2026-11-21 08:38 UTC` for a Unix time.
pub(crate) fn utc(time: i64) -> String {
    let days = time.div_euclid(86_400);
    let secs = time.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian), after Howard Hinnant.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / 3_600,
        secs % 3_600 / 60
    )
}

pub(crate) fn print_json(value: &Value) -> Result<(), CliError> {
    print_text(&format!("{value}\n"))
}

/// Write to stdout; a closed pipe is not an error.
pub(crate) fn print_text(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::user(format!("cannot write to stdout: {e}"))),
    }
}

pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size; use bytes or a K, M or G suffix"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("unknown size unit in `{text}`; use K, M or G")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

fn parse_age(text: &str) -> Result<Duration, String> {
    drop::parse_duration(text)
        .ok_or_else(|| format!("`{text}` is not a duration; use for example 30m, 12h, 7d or 2w"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ages() {
        assert_eq!(parse_size("10M"), Ok(10 << 20));
        assert!(parse_size("ten").is_err());
        assert_eq!(parse_age("2w"), Ok(Duration::from_secs(1_209_600)));
        assert!(parse_age("soon").is_err());
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(15 << 20), "15.0 MiB");
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_795_250_928), "2026-11-21 08:48 UTC");
    }
}
