//! `salve export RUN...|--all`: recorded runs as JSON Lines on stdout, one run per line with its
//! artifacts' contents, for `salve import` on another machine or for other tools. The shape is
//! documented in the README.

use salve_engine::record::{export, ExportOptions, Selection};

use crate::error::{failed, CliError};
use crate::global::Global;

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
    let options = ExportOptions {
        dir: global.work_dir(),
        runs: if args.all {
            Selection::All
        } else {
            Selection::Runs(args.runs.clone())
        },
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match export(&options, &mut out) {
        Ok(_) => Ok(0),
        // `salve export --all | head` is not an error.
        Err(e) if e.is_broken_pipe() => Ok(0),
        Err(e) => Err(failed(e)),
    }
}
