//! `salve commit --files A B -m MSG`: commit HEAD plus exactly the named files, with a
//! `<type>(<scopes>): MSG` message; the user's other staged and unstaged work stays as it was.

use std::path::PathBuf;

use salve_engine::commit::{self, Options, Verification};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{plural, print_json, print_text};

#[derive(Debug, clap::Args)]
pub struct CommitArgs {
    /// The files of the fix (relative to the current directory, or to -C DIR)
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    pub files: Vec<PathBuf>,
    /// The summary line after `<type>(<scopes>): `
    #[arg(short, long, value_name = "MSG")]
    pub message: String,
    /// The conventional commit type
    #[arg(long = "type", value_name = "TYPE", default_value = "fix", value_parser = parse_type)]
    pub kind: String,
    /// Scope for the `<type>(...)` prefix [default: derived from the files]
    #[arg(long, value_name = "SCOPE")]
    pub scope: Vec<String>,
    /// A check that failed before the fix (repeatable), for `Failed tasks:`
    #[arg(long, value_name = "TASK")]
    pub failed_task: Vec<String>,
    /// How the fix was verified, for a `Local verification:` line (none is written without it)
    #[arg(long, visible_alias = "verification", value_name = "RESULT", value_parser = ["passed", "enhanced", "failed"])]
    pub verified: Option<String>,
    /// Skip the pre-commit and commit-msg hooks
    #[arg(long)]
    pub no_verify: bool,
}

pub fn run(global: &Global, args: &CommitArgs) -> Result<u8, CliError> {
    let options = Options {
        dir: global.work_dir(),
        files: args.files.clone(),
        kind: args.kind.clone(),
        summary: args.message.clone(),
        scopes: args.scope.clone(),
        failed_tasks: args.failed_task.clone(),
        verification: args.verified.as_deref().and_then(Verification::parse),
        no_verify: args.no_verify,
        exact: Vec::new(),
    };
    let outcome = commit::commit(&options).map_err(failed)?;
    if global.json {
        print_json(&outcome)?;
    } else if !global.quiet {
        let branch = outcome.branch.as_deref().map_or("detached HEAD", |b| {
            b.strip_prefix("refs/heads/").unwrap_or(b)
        });
        let subject = outcome.message.lines().next().unwrap_or("");
        let short: String = outcome.commit.chars().take(7).collect();
        let files = plural(outcome.changed.len(), "file");
        print_text(&format!("[{branch} {short}] {subject}\n {files} changed\n"))?;
    }
    Ok(0)
}

/// A conventional commit type: one lowercase word.
fn parse_type(text: &str) -> Result<String, String> {
    let ok = !text.is_empty() && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
    if ok {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "`{text}` is not a commit type; use one lowercase word: fix, feat, chore, refactor, ..."
        ))
    }
}
