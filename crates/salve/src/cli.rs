//! Command-line arguments: global flags shared by every subcommand, and the subcommands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands;

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

/// Flags every subcommand accepts.
#[derive(Debug, Args)]
pub struct Global {
    /// Run as if salve was started in DIR (like `git -C`)
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
    /// Print machine-readable JSON on stdout; logs still go to stderr
    #[arg(long, global = true)]
    pub json: bool,
    /// Print no report on stdout (the exit code tells); errors still go to stderr
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply the edits in a model's reply: every file or none
    Apply(commands::apply::ApplyArgs),
    /// Ask the configured models for a change, then apply it like `apply` (checkpointed, recorded)
    Ask(commands::ask::AskArgs),
    /// Show what is installed and configured: git, config files, providers, chains, the record
    Doctor(commands::doctor::DoctorArgs),
    /// Snapshot the work tree and staged state into a private ref (or `drop` old ones)
    Checkpoint(commands::checkpoint::CheckpointArgs),
    /// List checkpoints, newest first
    Checkpoints(commands::checkpoints::CheckpointsArgs),
    /// Bring back a checkpoint's files and staged state (undoable)
    Restore(commands::restore::RestoreArgs),
    /// Undo the most recent salve change; a second undo redoes it
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
}
