//! `salve import [FILE|-]`: add the runs of a `salve export` to this record. All or nothing;
//! runs already present are skipped, so importing twice is the same as once.

use std::io::BufReader;
use std::path::PathBuf;

use crate::cli::Global;
use crate::commands::log::open;
use crate::error::CliError;
use crate::output::{plural, print_json};

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The export to read, or `-` for stdin (the default)
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

pub fn run(global: &Global, args: &ImportArgs) -> Result<u8, CliError> {
    let mut store = open(global)?;
    let stats = match args.file.as_deref() {
        Some(path) if path != std::path::Path::new("-") => {
            let file = std::fs::File::open(path).map_err(|e| {
                CliError::user(format!("cannot read {}: {e}", path.display()))
                    .with_hint("pass a file written by `salve export`, or - for stdin")
            })?;
            store.import(&mut BufReader::new(file))
        }
        _ => store.import(&mut std::io::stdin().lock()),
    }?;
    if global.json {
        print_json(&stats)?;
    } else if !global.quiet {
        eprintln!(
            "imported {}, skipped {} already present",
            plural(stats.imported, "run"),
            stats.skipped
        );
    }
    Ok(0)
}
