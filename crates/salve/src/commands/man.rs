//! `salve man`: the manual page (roff) on stdout, generated from the same argument definitions
//! the binary parses with: `salve man > salve.1 && man ./salve.1`.

use clap::CommandFactory as _;

use crate::cli::{Cli, Global};
use crate::error::CliError;
use crate::output::print_bytes;

#[derive(Debug, clap::Args)]
pub struct ManArgs {}

pub fn run(_global: &Global, _args: &ManArgs) -> Result<u8, CliError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| CliError::internal(format!("rendering the manual page: {e}")))?;
    print_bytes(&page)?;
    Ok(0)
}
