//! `salve restore ID`: the whole-tree time machine. It brings back a checkpoint's files and
//! staged state; the state it replaces is checkpointed first, so `salve undo` takes the restore
//! back.

use salve_engine::restore::{self, Options};

use crate::cli::{parse_size, Global};
use crate::error::{failed, CliError};
use crate::output::render_restore;

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
    let options = Options {
        max_file_size: args.max_file_size,
        ..Options::new(global.work_dir(), &args.id)
    };
    let outcome = restore::restore(&options).map_err(failed)?;
    render_restore(global, &outcome, "restored", &outcome)?;
    Ok(0)
}
