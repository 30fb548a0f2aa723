//! One module per subcommand. Each exposes its clap arguments and a `run` that returns the exit
//! code of a job that ran (0 or 1) or a [`crate::error::CliError`].

pub mod apply;
pub mod ask;
pub mod checkpoint;
pub mod checkpoints;
pub mod commit;
pub mod completions;
pub mod doctor;
pub mod export;
pub mod fix;
pub mod gc;
pub mod import;
pub mod log;
pub mod man;
pub mod mcp;
pub mod restore;
pub mod rules;
pub mod show;
pub mod trust;
pub mod ui;
pub mod undo;

use crate::cli::{Cli, Command};
use crate::error::CliError;

/// Run the chosen subcommand.
pub fn run(cli: &Cli) -> Result<u8, CliError> {
    match &cli.command {
        Command::Apply(args) => apply::run(&cli.global, args),
        Command::Ask(args) => ask::run(&cli.global, args),
        Command::Doctor(args) => doctor::run(&cli.global, args),
        Command::Checkpoint(args) => checkpoint::run(&cli.global, args),
        Command::Checkpoints(args) => checkpoints::run(&cli.global, args),
        Command::Restore(args) => restore::run(&cli.global, args),
        Command::Undo(args) => undo::run(&cli.global, args),
        Command::Commit(args) => commit::run(&cli.global, args),
        Command::Log(args) => log::run(&cli.global, args),
        Command::Show(args) => show::run(&cli.global, args),
        Command::Export(args) => export::run(&cli.global, args),
        Command::Import(args) => import::run(&cli.global, args),
        Command::Gc(args) => gc::run(&cli.global, args),
        Command::Fix(args) => fix::run(&cli.global, args),
        Command::Rules(args) => rules::run(&cli.global, args),
        Command::Completions(args) => completions::run(&cli.global, args),
        Command::Man(args) => man::run(&cli.global, args),
        Command::Mcp(args) => mcp::run(&cli.global, args),
        Command::Ui(args) => ui::run(&cli.global, args),
        Command::Trust(args) => trust::run(&cli.global, args),
    }
}
