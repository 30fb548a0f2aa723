//! `salve restore ID`: bring back a checkpoint's files and staged state. The state it replaces
//! is checkpointed first, so `salve undo` takes the restore back.

use salve_git::restore;
use serde_json::{json, Value};

use crate::cli::{parse_size, Global};
use crate::commands::checkpoint::{limits, open_repo, refused, report_skipped};
use crate::error::CliError;
use crate::output::{paths_json, print_json, print_text, show};

#[derive(Debug, clap::Args)]
pub struct RestoreArgs {
    /// The checkpoint id (or a unique prefix); `salve checkpoints` lists them
    #[arg(value_name = "ID")]
    pub id: String,
    /// Leave untracked files larger than this out of the checkpoint taken first
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "10M")]
    pub max_file_size: u64,
}

pub fn run(global: &Global, args: &RestoreArgs) -> Result<u8, CliError> {
    let repo = open_repo(global)?;
    let options = restore::Options {
        limits: limits(args.max_file_size),
        ..restore::Options::default()
    };
    match restore::restore(&repo, &args.id, &options) {
        Ok(outcome) => {
            report(global, &outcome, "restored")?;
            Ok(0)
        }
        Err(e) => restore_failure(global, e),
    }
}

/// Exit 1 for a restore that was refused (something in the way, a merge under way), 2 for the
/// rest.
pub(crate) fn restore_failure(global: &Global, e: restore::Error) -> Result<u8, CliError> {
    match e {
        restore::Error::Git(e) => Err(e.into()),
        restore::Error::Find(e) => Err(e.into()),
        restore::Error::Checkpoint(e) => Err(CliError::user(e)),
        restore::Error::Io { .. } => Err(CliError::user(e)),
        e @ restore::Error::Blocked(_) => refused(global, "blocked", &e),
        e @ (restore::Error::InProgress(_) | restore::Error::Unmerged) => {
            refused(global, "in_progress", &e)
        }
    }
}

pub(crate) fn outcome_json(outcome: &restore::Outcome) -> Value {
    json!({
        "target": outcome.target.id,
        "target_commit": outcome.target.commit,
        "before": outcome.before.id,
        "written": paths_json(&outcome.written),
        "deleted": paths_json(&outcome.deleted),
        "captured": paths_json(&outcome.captured),
        "index_restored": outcome.index_restored,
        "head_differs": outcome.head_differs,
    })
}

pub(crate) fn report(
    global: &Global,
    outcome: &restore::Outcome,
    verb: &str,
) -> Result<(), CliError> {
    report_skipped(global, &outcome.before.skipped);
    if global.json {
        return print_json(&outcome_json(outcome));
    }
    if global.quiet {
        return Ok(());
    }
    let mut text = format!(
        "{verb} checkpoint {}: {} written, {} deleted\n",
        outcome.target.id,
        outcome.written.len(),
        outcome.deleted.len()
    );
    if !outcome.captured.is_empty() {
        text.push_str(&format!(
            "note: {} uncaptured file(s) were saved before being overwritten: {}\n",
            outcome.captured.len(),
            outcome
                .captured
                .iter()
                .map(|p| show(p))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if outcome.head_differs {
        text.push_str(
            "note: HEAD has moved since that checkpoint; HEAD was left alone and the staged \
             state is the checkpoint's\n",
        );
    }
    if !outcome.index_restored {
        text.push_str("note: the checkpoint recorded no staged state; the index was left alone\n");
    }
    text.push_str(&format!(
        "the previous state is checkpoint {}; `salve undo` goes back to it\n",
        outcome.before.id
    ));
    print_text(&text)
}
