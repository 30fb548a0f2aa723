//! `salve mcp [-C DIR] [--allow-any-check]`: serve salve's tools to a coding agent over MCP on
//! stdin and stdout (see the `salve-mcp` crate). stdout carries JSON-RPC only.

use crate::error::{failed, CliError};
use crate::global::Global;

#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Let the run_check tool run any command, not only those listed in [mcp] allowed_checks
    #[arg(long)]
    pub allow_any_check: bool,
}

pub fn run(global: &Global, args: &McpArgs) -> Result<u8, CliError> {
    // Ctrl-C or SIGTERM during an edit lets it finish or stop cleanly, then ends the server.
    salve_engine::interrupt::exit_when_idle();
    let options = salve_mcp::Options {
        dir: global.existing_work_dir()?,
        allow_any_check: args.allow_any_check,
    };
    salve_mcp::serve_stdio(&options).map_err(failed)?;
    Ok(0)
}
