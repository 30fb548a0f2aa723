//! Command-line arguments: global flags shared by every subcommand, the subcommands, and the
//! value parsers several of them share.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands;
use crate::error::CliError;
use crate::style::ColorWhen;

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
    /// When to colour the output: auto (a terminal, unless NO_COLOR is set), always or never;
    /// JSON is never coloured
    #[arg(long, value_name = "WHEN", value_enum, global = true, default_value_t)]
    pub color: ColorWhen,
}

impl Global {
    /// The directory salve works in: `-C DIR` or the current one.
    pub fn work_dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// [`work_dir`](Self::work_dir), which must be a directory.
    pub fn existing_work_dir(&self) -> Result<PathBuf, CliError> {
        let dir = self.work_dir();
        if !dir.is_dir() {
            return Err(
                CliError::user(format!("{} is not a directory", dir.display()))
                    .with_hint("check the directory given with -C"),
            );
        }
        Ok(dir)
    }
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

/// A size in bytes, or with a K, M or G suffix (`64M`, `2KiB`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size; use bytes or a K, M or G suffix"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("unknown size unit in `{text}`; use K, M or G")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2KiB"), Ok(2048));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3T").is_err());
        assert_eq!(parse_size("10M"), Ok(10 << 20));
        assert!(parse_size("ten").is_err());
    }
}
