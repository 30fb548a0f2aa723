//! `salve checkpoints`: list checkpoints, newest first (id, age, files changed against the HEAD
//! they were taken on, message).

use salve_engine::checkpoint::{self, ListOptions};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{age, print_json, print_text, utc};

#[derive(Debug, clap::Args)]
pub struct CheckpointsArgs {
    /// Only checkpoints taken in this work tree (linked worktrees share the list)
    #[arg(long)]
    pub here: bool,
}

pub fn run(global: &Global, args: &CheckpointsArgs) -> Result<u8, CliError> {
    let options = ListOptions {
        dir: global.work_dir(),
        here: args.here,
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
    let mut text = format!(
        "{:<12}  {:<20}  {:>8}  {:>5}  {}\n",
        "ID", "TIME", "AGE", "FILES", "MESSAGE"
    );
    for c in &list.checkpoints {
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
