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
