//! `salve undo`: restore the checkpoint taken before the most recent salve change in this work
//! tree. Undo is itself a change, so a second `salve undo` redoes.

use salve_git::undo;
use serde_json::json;

use crate::cli::{parse_size, Global};
use crate::commands::checkpoint::{limits, open_repo, refused};
use crate::commands::restore::{outcome_json, report, restore_failure};
use crate::error::CliError;
use crate::output::{age, print_json};

#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// Leave untracked files larger than this out of the checkpoint taken first
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "10M")]
    pub max_file_size: u64,
}

pub fn run(global: &Global, args: &UndoArgs) -> Result<u8, CliError> {
    let repo = open_repo(global)?;
    let mut options = undo::Options::default();
    options.restore.limits = limits(args.max_file_size);
    match undo::undo(&repo, &options) {
        Ok(outcome) => {
            if global.json {
                print_json(&json!({
                    "undone": {
                        "kind": outcome.undone.kind,
                        "time": outcome.undone.time,
                        "checkpoint": outcome.undone.before,
                    },
                    "restore": outcome_json(&outcome.restore),
                }))?;
            } else {
                let verb = format!(
                    "undid {} from {}: restored",
                    outcome.undone.kind,
                    age(outcome.undone.time)
                );
                report(global, &outcome.restore, &verb)?;
            }
            Ok(0)
        }
        Err(undo::Error::Git(e)) => Err(e.into()),
        Err(undo::Error::Restore(e)) => restore_failure(global, e),
        Err(e @ undo::Error::NothingToUndo) => refused(global, "nothing_to_undo", &e),
        Err(e @ undo::Error::CheckpointGone { .. }) => refused(global, "checkpoint_gone", &e),
    }
}
