//! `salve export RUN...|--all`: recorded runs as JSON Lines on stdout, one run per line with its
//! artifacts' contents, for `salve import` on another machine or for other tools. The shape is
//! documented in the README.

use crate::cli::Global;
use salve_store::StoreError;

use crate::commands::log::{open_existing, resolve};
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
            Some(store) => store.all_ids()?,
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
    // Streamed: a full record can be far larger than memory. A failure part way (a missing
    // object) stops with an error after the lines already written.
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = store.export(&ids, &mut out).and_then(|()| {
        std::io::Write::flush(&mut out).map_err(|e| StoreError::Io {
            context: "writing the export".to_owned(),
            source: e,
        })
    });
    match written {
        Ok(()) => Ok(0),
        // `salve export --all | head` is not an error.
        Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(0)
        }
        Err(e) => Err(e.into()),
    }
}
