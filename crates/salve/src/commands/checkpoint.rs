//! `salve checkpoint [-m MSG]` snapshots the work tree and staged state;
//! `salve checkpoint drop ID|--older-than DUR` prunes snapshots.
//!
//! Also the small helpers the other git-safety commands (`checkpoints`, `restore`, `undo`,
//! `commit`) share: finding the repository, reporting a job that was refused, and reporting the
//! paths a checkpoint skipped.

use std::io::Write as _;
use std::time::Duration;

use salve_git::checkpoint::{self, create, drop};
use salve_git::Repo;
use serde_json::{json, Value};

use crate::cli::{parse_size, Global};
use crate::error::CliError;
use crate::output::{human_bytes, print_json, print_text, show};

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
        create::Error::Git(e) => CliError::from(e),
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
        drop::Error::Git(e) => CliError::from(e),
        drop::Error::Find(e) => CliError::from(e),
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
    Ok(Repo::discover(&global.work_dir())?)
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

fn parse_age(text: &str) -> Result<Duration, String> {
    salve_store::time::parse_duration(text)
        .and_then(|ms| u64::try_from(ms).ok())
        .map(Duration::from_millis)
        .ok_or_else(|| format!("`{text}` is not a duration; use for example 30m, 12h, 7d or 2w"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        assert_eq!(parse_age("2w"), Ok(Duration::from_secs(1_209_600)));
        assert!(parse_age("soon").is_err());
    }
}
