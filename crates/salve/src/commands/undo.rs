//! `salve undo`: take back the most recent salve change in this work tree, and only it (an
//! apply's or ask's own diff, reverted); `--force` restores the checkpoint taken before it
//! instead. Undo is itself a change, so a second `salve undo` redoes. `--steps N` goes back
//! through the N most recent changes still in place, newest first, each step its own undo.

use salve_engine::undo::{self, Options, Outcome, Steps};

use crate::error::{failed, CliError};
use crate::global::{parse_size, Global};
use crate::output::{age, print_json, print_text, render_restore};

#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// Leave untracked files larger than this out of the checkpoint taken first; above 64M it
    /// also raises the limit for reading the files undo reverts (the limit the change ran
    /// with is remembered)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "10M")]
    pub max_file_size: u64,
    /// Restore the whole tree as it was before the change, later work included (it is
    /// checkpointed first), instead of reverting the change alone
    #[arg(long)]
    pub force: bool,
    /// Go back through the N most recent salve changes still in place (undos are not steps;
    /// a change already undone is skipped), newest first; each step is an undo of its own
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub steps: Option<u32>,
}

pub fn run(global: &Global, args: &UndoArgs) -> Result<u8, CliError> {
    let options = Options {
        max_file_size: args.max_file_size,
        force: args.force,
        ..Options::new(global.work_dir())
    };
    if let Some(count) = args.steps {
        let steps = undo::undo_steps(&options, usize::try_from(count).unwrap_or(usize::MAX))
            .map_err(failed)?;
        return render_steps(global, &steps);
    }
    let outcome = undo::undo(&options).map_err(failed)?;
    if let Some(restore) = &outcome.restore {
        let verb = format!(
            "undid {} from {}: restored",
            outcome.undone.kind,
            age(outcome.undone.time)
        );
        render_restore(global, restore, &verb, &outcome)?;
    } else if global.json {
        print_json(&outcome)?;
    } else if let (Some(reverted), false) = (&outcome.reverted, global.quiet) {
        let mut text = format!(
            "undid {} from {}: {} {}\n",
            outcome.undone.kind,
            age(outcome.undone.time),
            if reverted.redo {
                "applied its change again to"
            } else {
                "reverted its changes to"
            },
            if reverted.written.is_empty() {
                "no file (already reverted)".to_owned()
            } else {
                reverted.written.join(", ")
            }
        );
        if let Some(id) = &reverted.checkpoint {
            text.push_str(&format!(
                "the previous state is checkpoint {id}; `salve undo` again redoes it\n"
            ));
        }
        print_text(&text)?;
    }
    Ok(0)
}

/// Each step as a line, then where the walk stopped; exit 1 when it stopped short.
fn render_steps(global: &Global, steps: &Steps) -> Result<u8, CliError> {
    if global.json {
        print_json(steps)?;
    } else if !global.quiet {
        let mut text = String::new();
        for (i, step) in steps.steps.iter().enumerate() {
            text.push_str(&format!("step {}: {}\n", i + 1, step_line(step)));
        }
        if let Some(stopped) = &steps.stopped {
            text.push_str(&format!(
                "step {}: not taken: the {} from {}: {}\n",
                steps.steps.len() + 1,
                stopped.kind,
                age(stopped.time),
                stopped.message
            ));
        }
        text.push_str(&format!(
            "undid {} of {} {}; `salve undo` takes back the last step\n",
            steps.steps.len(),
            steps.asked,
            if steps.asked == 1 {
                "change"
            } else {
                "changes"
            }
        ));
        print_text(&text)?;
    }
    Ok(if steps.stopped.is_some() { 1 } else { 0 })
}

fn step_line(step: &Outcome) -> String {
    let what = format!("undid {} from {}", step.undone.kind, age(step.undone.time));
    match (&step.reverted, &step.restore) {
        (Some(reverted), _) if reverted.written.is_empty() => {
            format!("{what}: no file to revert (already reverted)")
        }
        (Some(reverted), _) => format!("{what}: reverted {}", reverted.written.join(", ")),
        (None, Some(restore)) => format!(
            "{what}: restored checkpoint {} ({} files written, {} deleted)",
            restore.target,
            restore.written.len(),
            restore.deleted.len()
        ),
        (None, None) => what,
    }
}
