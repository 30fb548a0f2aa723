//! `salve checkpoints`: list checkpoints, newest first (id, age, files changed against the HEAD
//! they were taken on, message).

use salve_git::checkpoint::{self, list};
use serde_json::json;

use crate::cli::Global;
use crate::commands::checkpoint::open_repo;
use crate::error::CliError;
use crate::output::{age, print_json, print_text, utc};

#[derive(Debug, clap::Args)]
pub struct CheckpointsArgs {
    /// Only checkpoints taken in this work tree (linked worktrees share the list)
    #[arg(long)]
    pub here: bool,
}

pub fn run(global: &Global, args: &CheckpointsArgs) -> Result<u8, CliError> {
    let repo = open_repo(global)?;
    let options = list::Options {
        with_file_counts: true,
    };
    let mut all = checkpoint::list(&repo, &options)?;
    if args.here {
        all.retain(|c| c.worktree.as_deref() == Some(repo.root.as_path()));
    }
    if global.json {
        let items: Vec<_> = all
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "commit": c.commit,
                    "time": c.time,
                    "message": c.message,
                    "head": c.head,
                    "branch": c.branch,
                    "worktree": c.worktree.as_ref().map(|w| w.to_string_lossy()),
                    "files_changed": c.files_changed,
                    "skipped": c.skipped,
                })
            })
            .collect();
        print_json(&json!(items))?;
        return Ok(0);
    }
    if global.quiet {
        return Ok(0);
    }
    if all.is_empty() {
        print_text("no checkpoints yet; `salve checkpoint` takes one\n")?;
        return Ok(0);
    }
    let mut text = format!(
        "{:<12}  {:<20}  {:>8}  {:>5}  {}\n",
        "ID", "TIME", "AGE", "FILES", "MESSAGE"
    );
    for c in &all {
        let files = c
            .files_changed
            .map_or_else(|| "?".to_owned(), |n| n.to_string());
        let message = c.message.lines().next().unwrap_or("");
        text.push_str(&format!(
            "{:<12}  {:<20}  {:>8}  {:>5}  {}\n",
            c.id,
            utc(c.time),
            age(c.time),
            files,
            message
        ));
    }
    print_text(&text)?;
    Ok(0)
}
