//! `salve undo`: restore the checkpoint taken before the most recent salve change in this work
//! tree. Undo is itself a change, so a second `salve undo` redoes.

use salve_engine::undo::{self, Options};

use crate::cli::{parse_size, Global};
use crate::error::{failed, CliError};
use crate::output::{age, render_restore};

#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// Leave untracked files larger than this out of the checkpoint taken first
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "10M")]
    pub max_file_size: u64,
}

pub fn run(global: &Global, args: &UndoArgs) -> Result<u8, CliError> {
    let options = Options {
        max_file_size: args.max_file_size,
        ..Options::new(global.work_dir())
    };
    let outcome = undo::undo(&options).map_err(failed)?;
    let verb = format!(
        "undid {} from {}: restored",
        outcome.undone.kind,
        age(outcome.undone.time)
    );
    render_restore(global, &outcome.restore, &verb, &outcome)?;
    Ok(0)
}
