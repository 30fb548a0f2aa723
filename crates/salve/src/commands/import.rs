//! `salve import [FILE|-]`: add the runs of a `salve export` to this record. All or nothing;
//! runs already present are skipped, so importing twice is the same as once.

use std::path::{Path, PathBuf};

use salve_engine::record::{import, ImportOptions};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{plural, print_json};

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The export to read, or `-` for stdin (the default)
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

pub fn run(global: &Global, args: &ImportArgs) -> Result<u8, CliError> {
    let options = ImportOptions {
        dir: global.work_dir(),
        file: args.file.clone().filter(|f| f != Path::new("-")),
    };
    let stats = import(&options, &mut std::io::stdin().lock()).map_err(failed)?;
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
