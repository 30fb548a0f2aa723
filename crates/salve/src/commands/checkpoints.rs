//! `salve checkpoints`: list checkpoints, newest first (id, age, files changed against the HEAD
//! they were taken on, message).

use salve_engine::checkpoint::{self, ListOptions};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{age, print_json, print_text, utc};

#[derive(Debug, clap::Args)]
pub struct CheckpointsArgs {
    /// Only checkpoints taken in this work tree (the default; kept for older scripts)
    #[arg(long, hide = true, conflicts_with = "all_worktrees")]
    pub here: bool,
    /// Checkpoints of every worktree of the repository, with a WORKTREE column
    #[arg(long)]
    pub all_worktrees: bool,
}

pub fn run(global: &Global, args: &CheckpointsArgs) -> Result<u8, CliError> {
    let options = ListOptions {
        dir: global.work_dir(),
        here: !args.all_worktrees,
        limit: None,
        offset: 0,
    };
    let list = checkpoint::list(&options).map_err(failed)?;
    if global.json {
        print_json(&list)?;
        return Ok(0);
    }
    if global.quiet {
        return Ok(0);
    }
    if list.checkpoints.is_empty() {
        print_text("no checkpoints yet; `salve checkpoint` takes one\n")?;
        return Ok(0);
    }
    // With every worktree listed, each row says which one it belongs to.
    let worktrees: Vec<String> = list
        .checkpoints
        .iter()
        .map(|c| c.worktree.clone().unwrap_or_else(|| "?".to_owned()))
        .collect();
    let width = worktrees.iter().map(String::len).max().unwrap_or(0).max(8);
    let column = |w: &str| {
        if args.all_worktrees {
            format!("{w:<width$}  ")
        } else {
            String::new()
        }
    };
    let mut text = format!(
        "{:<12}  {:<20}  {:>8}  {:>5}  {}{}\n",
        "ID",
        "TIME",
        "AGE",
        "FILES",
        column("WORKTREE"),
        "MESSAGE"
    );
    for (c, w) in list.checkpoints.iter().zip(&worktrees) {
        let files = c
            .files_changed
            .map_or_else(|| "?".to_owned(), |n| n.to_string());
        let message = c.message.lines().next().unwrap_or("");
        text.push_str(&format!(
            "{:<12}  {:<20}  {:>8}  {:>5}  {}{}\n",
            c.id,
            utc(c.time),
            age(c.time),
            files,
            column(w),
            message
        ));
    }
    print_text(&text)?;
    Ok(0)
}
