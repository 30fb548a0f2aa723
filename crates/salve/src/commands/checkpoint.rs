//! `salve checkpoint [-m MSG]` snapshots the work tree and staged state;
//! `salve checkpoint drop ID|--older-than DUR` prunes snapshots.

use std::time::Duration;

use salve_engine::checkpoint::{self, CreateOptions, DropOptions, DropSelection};

use crate::error::{failed, CliError};
use crate::global::{parse_size, Global};
use crate::output::{print_json, print_text, report_skipped};

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
    if let Some(CheckpointAction::Drop(drop_args)) = &args.action {
        return run_drop(global, drop_args);
    }
    let options = CreateOptions {
        dir: global.work_dir(),
        message: args.message.clone(),
        max_file_size: args.max_file_size,
    };
    let taken = checkpoint::create(&options).map_err(failed)?;
    report_skipped(global, &taken.skipped);
    if global.json {
        print_json(&taken)?;
    } else if !global.quiet {
        print_text(&format!("checkpoint {}\n", taken.id))?;
    }
    Ok(0)
}

fn run_drop(global: &Global, args: &DropArgs) -> Result<u8, CliError> {
    let selection = match (&args.id, args.older_than) {
        (Some(id), _) => DropSelection::Id(id.clone()),
        (None, Some(age)) => DropSelection::OlderThan(age),
        (None, None) => return Err(CliError::user("name a checkpoint or pass --older-than")),
    };
    let options = DropOptions {
        dir: global.work_dir(),
        selection,
    };
    let outcome = checkpoint::drop(&options).map_err(failed)?;
    if global.json {
        print_json(&outcome)?;
    } else if !global.quiet {
        let mut text = String::new();
        for id in &outcome.dropped {
            text.push_str(&format!("dropped {id}\n"));
        }
        if outcome.dropped.is_empty() {
            text.push_str("no checkpoint to drop\n");
        }
        print_text(&text)?;
    }
    Ok(0)
}

fn parse_age(text: &str) -> Result<Duration, String> {
    salve_engine::record::parse_duration(text)
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
