//! `salve undo`: take back the most recent salve change in this work tree, and only it (an
//! apply's or ask's own diff, reverted); `--force` restores the checkpoint taken before it
//! instead. Undo is itself a change, so a second `salve undo` redoes.

use salve_engine::undo::{self, Options};

use crate::cli::{parse_size, Global};
use crate::error::{failed, CliError};
use crate::output::{age, print_json, print_text, render_restore};

#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// Leave untracked files larger than this out of the checkpoint taken first; above 64M it
    /// also raises the limit for reading the files undo reverts (the limit the change ran
    /// with is remembered)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "10M")]
    pub max_file_size: u64,
    /// Restore the whole tree as it was before the change, later work included (it is
    /// checkpointed first), instead of reverting the change alone
    #[arg(long)]
    pub force: bool,
}

pub fn run(global: &Global, args: &UndoArgs) -> Result<u8, CliError> {
    let options = Options {
        max_file_size: args.max_file_size,
        force: args.force,
        ..Options::new(global.work_dir())
    };
    let outcome = undo::undo(&options).map_err(failed)?;
    if let Some(restore) = &outcome.restore {
        let verb = format!(
            "undid {} from {}: restored",
            outcome.undone.kind,
            age(outcome.undone.time)
        );
        render_restore(global, restore, &verb, &outcome)?;
    } else if global.json {
        print_json(&outcome)?;
    } else if let (Some(reverted), false) = (&outcome.reverted, global.quiet) {
        let mut text = format!(
            "undid {} from {}: reverted its changes to {}\n",
            outcome.undone.kind,
            age(outcome.undone.time),
            if reverted.written.is_empty() {
                "no file (already reverted)".to_owned()
            } else {
                reverted.written.join(", ")
            }
        );
        if let Some(id) = &reverted.checkpoint {
            text.push_str(&format!(
                "the previous state is checkpoint {id}; `salve undo` again redoes it\n"
            ));
        }
        print_text(&text)?;
    }
    Ok(0)
}
