//! `salve export RUN...|--all`: recorded runs as JSON Lines on stdout, one run per line with its
//! artifacts' contents, for `salve import` on another machine or for other tools. The shape is
//! documented in the README.

use crate::cli::Global;
use crate::commands::log::{open_existing, resolve, store_error, write_bytes};
use crate::error::CliError;

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The runs to export: ids or unique prefixes
    #[arg(
        value_name = "RUN",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub runs: Vec<String>,
    /// Export every run, oldest first
    #[arg(long)]
    pub all: bool,
}

pub fn run(global: &Global, args: &ExportArgs) -> Result<u8, CliError> {
    let store = open_existing(global)?;
    let ids = if args.all {
        match &store {
            Some(store) => store.all_ids().map_err(store_error)?,
            None => Vec::new(),
        }
    } else {
        args.runs
            .iter()
            .map(|r| resolve(store.as_ref(), r))
            .collect::<Result<Vec<_>, _>>()?
    };
    let Some(store) = store else {
        return Ok(0);
    };
    // Built in memory so that a failure part way (a missing object) prints no partial export.
    let mut out = Vec::new();
    store.export(&ids, &mut out).map_err(store_error)?;
    write_bytes(&out)?;
    Ok(0)
}
