//! Command-line arguments: the global flags ([`crate::global`]) and the subcommands, and the
//! dispatch from a parsed command line to the subcommand's `run`.

use clap::{CommandFactory, Parser, Subcommand};

use crate::commands::{self, *};
use crate::error::CliError;
use crate::global::Global;

/// Land model-written code edits safely: place every hunk exactly or refuse, write all files or
/// none.
#[derive(Debug, Parser)]
#[command(name = "salve", version, propagate_version = true)]
#[command(
    after_help = "Exit codes: 0 success or already applied, 1 refused or partial, \
                        2 usage, configuration or environment error, 101 internal bug."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply the edits in a model's reply: every file or none
    Apply(commands::apply::ApplyArgs),
    /// Ask the configured models for a change, then apply it like `apply` (checkpointed, recorded)
    Ask(commands::ask::AskArgs),
    /// Make a failing check pass: classify, repair (rules, then the model), verify, commit
    Fix(commands::fix::FixArgs),
    /// The repairs `salve fix` learned or the repository pinned: list, show, pin, unpin, rm
    Rules(commands::rules::RulesArgs),
    /// Show what is installed and configured: git, config files, providers, chains, the record
    Doctor(commands::doctor::DoctorArgs),
    /// Allow this repository's salve.toml to run programs, receive your API keys or allow checks
    Trust(commands::trust::TrustArgs),
    /// Snapshot the work tree and staged state into salve's checkpoint catalog (or `drop` old ones)
    Checkpoint(commands::checkpoint::CheckpointArgs),
    /// List checkpoints, newest first
    Checkpoints(commands::checkpoints::CheckpointsArgs),
    /// The whole-tree time machine: bring back a checkpoint's files and staged state (undoable)
    Restore(commands::restore::RestoreArgs),
    /// Take back the most recent salve change alone (later work stays); a second undo redoes
    Undo(commands::undo::UndoArgs),
    /// Commit HEAD plus exactly the named files, leaving other work staged or unstaged
    Commit(commands::commit::CommitArgs),
    /// List recorded runs, newest first
    Log(commands::log::LogArgs),
    /// Show one recorded run: patch sets, attempts, decisions, artifacts
    Show(commands::show::ShowArgs),
    /// Write recorded runs as JSON Lines (for `salve import` or other tools)
    Export(commands::export::ExportArgs),
    /// Add runs from a `salve export` to this repository's record
    Import(commands::import::ImportArgs),
    /// Prune old runs and remove artifacts no run references
    Gc(commands::gc::GcArgs),
    /// Serve apply, checkpoints, restore, checks and the record to a coding agent over MCP (stdio)
    Mcp(commands::mcp::McpArgs),
    /// Serve a local page of runs and checkpoints on 127.0.0.1, with "restore to here", live
    Ui(commands::ui::UiArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(commands::completions::CompletionsArgs),
    /// Print a manual page (roff): `salve man > salve.1`, `salve man apply > salve-apply.1`;
    /// `--dir DIR` writes them all
    Man(commands::man::ManArgs),
}

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
        Command::Completions(args) => completions::run(&cli.global, args, Cli::command()),
        Command::Man(args) => man::run(&cli.global, args, Cli::command()),
        Command::Mcp(args) => mcp::run(&cli.global, args),
        Command::Ui(args) => ui::run(&cli.global, args),
        Command::Trust(args) => trust::run(&cli.global, args),
    }
}
