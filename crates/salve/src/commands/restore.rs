//! `salve restore ID`: the whole-tree time machine. It brings back a checkpoint's files and
//! staged state; the state it replaces is checkpointed first, so `salve undo` takes the restore
//! back. `salve restore --to-run RUN` goes back to just before a recorded run (its checkpoint)
//! and marks that run and the later ones rewound in the record, as the page's "Restore to here".

use salve_engine::{restore, rewind};

use crate::error::{failed, CliError};
use crate::global::{parse_size, Global};
use crate::output::{print_text, render_restore};

#[derive(Debug, clap::Args)]
pub struct RestoreArgs {
    /// The checkpoint id (or a unique prefix); `salve checkpoints` lists them
    #[arg(
        value_name = "ID",
        required_unless_present = "to_run",
        conflicts_with = "to_run"
    )]
    pub id: Option<String>,
    /// Go back to just before this recorded run (an id or unique prefix; `salve log` lists
    /// them); it and the later runs are marked rewound
    #[arg(long, value_name = "RUN")]
    pub to_run: Option<String>,
    /// Leave untracked files larger than this out of the checkpoint taken first
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "10M")]
    pub max_file_size: u64,
    /// Restore a checkpoint taken in another worktree of this repository, writing its files
    /// into this one
    #[arg(long)]
    pub other_worktree: bool,
}

pub fn run(global: &Global, args: &RestoreArgs) -> Result<u8, CliError> {
    if let Some(run) = &args.to_run {
        let options = rewind::Options {
            max_file_size: args.max_file_size,
            ..rewind::Options::new(global.work_dir(), run)
        };
        let outcome = rewind::rewind(&options).map_err(failed)?;
        render_restore(global, &outcome.restore, "restored", &outcome)?;
        if !global.json && !global.quiet {
            print_text(&format!(
                "{} run(s) marked rewound, from run {}\n",
                outcome.rewound.len(),
                outcome.run
            ))?;
        }
        return Ok(0);
    }
    let options = restore::Options {
        max_file_size: args.max_file_size,
        other_worktree: args.other_worktree,
        ..restore::Options::new(global.work_dir(), args.id.as_deref().unwrap_or_default())
    };
    let outcome = restore::restore(&options).map_err(|e| {
        let other = matches!(e, restore::Error::OtherWorktree { .. });
        let error = failed(e);
        if other {
            error.with_hint(
                "run `salve restore` in that worktree (`salve -C DIR restore ID`), or pass \
                 --other-worktree to write its files into this one",
            )
        } else {
            error
        }
    })?;
    render_restore(global, &outcome, "restored", &outcome)?;
    Ok(0)
}
