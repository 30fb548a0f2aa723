//! `salve commit --files A B -m MSG`: commit HEAD plus exactly the named files, with a
//! `fix(<scopes>): MSG` message; the user's other staged and unstaged work stays as it was.

use std::path::{Component, Path, PathBuf};

use salve_git::commit::{self, files, FixMessage, Verification};
use serde_json::json;

use crate::cli::Global;
use crate::commands::checkpoint::{open_repo, refused};
use crate::error::CliError;
use crate::output::{paths_json, plural, print_json, print_text};

#[derive(Debug, clap::Args)]
pub struct CommitArgs {
    /// The files of the fix (relative to the current directory, or to -C DIR)
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    pub files: Vec<PathBuf>,
    /// The summary line after `fix(<scopes>): `
    #[arg(short, long, value_name = "MSG")]
    pub message: String,
    /// Scope for the `fix(...)` prefix [default: derived from the files]
    #[arg(long, value_name = "SCOPE")]
    pub scope: Vec<String>,
    /// A check that failed before the fix (repeatable), for `Failed tasks:`
    #[arg(long, value_name = "TASK")]
    pub failed_task: Vec<String>,
    /// What `Local verification:` says
    #[arg(long, value_name = "RESULT", default_value = "passed", value_parser = ["passed", "enhanced", "failed"])]
    pub verification: String,
    /// Skip the pre-commit and commit-msg hooks
    #[arg(long)]
    pub no_verify: bool,
}

pub fn run(global: &Global, args: &CommitArgs) -> Result<u8, CliError> {
    let repo = open_repo(global)?;
    let base = global.work_dir();
    let mut paths = Vec::new();
    for file in &args.files {
        paths.push(relative_to_root(&base, file, &repo.root)?);
    }
    let scopes = if args.scope.is_empty() {
        commit::scopes_for(&paths)
    } else {
        args.scope.clone()
    };
    let message = FixMessage {
        scopes,
        summary: args.message.clone(),
        failed_tasks: args.failed_task.clone(),
        verification: Verification::parse(&args.verification).unwrap_or_default(),
    }
    .render();
    let options = files::Options {
        paths,
        message,
        no_verify: args.no_verify,
        ..files::Options::default()
    };
    let outcome = match commit::files(&repo, &options) {
        Ok(outcome) => outcome,
        Err(files::Error::Git(e)) => return Err(e.into()),
        Err(e @ files::Error::NoIdentity) => return Err(CliError::config(e)),
        Err(
            e @ (files::Error::NoPaths
            | files::Error::OutsideWorkTree(_)
            | files::Error::NoSuchPath(_)
            | files::Error::EmptyMessage
            | files::Error::Io { .. }),
        ) => return Err(CliError::user(e)),
        Err(e @ files::Error::NothingToCommit) => return refused(global, "nothing_to_commit", &e),
        Err(e @ files::Error::InProgress(_)) => return refused(global, "in_progress", &e),
        Err(e @ files::Error::HeadMoved { .. }) => return refused(global, "head_moved", &e),
        Err(e @ files::Error::Hook { .. }) => return refused(global, "hook_failed", &e),
    };
    if global.json {
        print_json(&json!({
            "commit": outcome.commit,
            "parent": outcome.parent,
            "branch": outcome.branch,
            "changed": paths_json(&outcome.changed),
            "message": outcome.message,
        }))?;
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

/// `file` as given on the command line (relative to `base`), relative to the work tree root.
fn relative_to_root(base: &Path, file: &Path, root: &Path) -> Result<PathBuf, CliError> {
    let outside = || CliError::user(format!("{} is outside the work tree", file.display()));
    let joined = if file.is_absolute() {
        file.to_path_buf()
    } else {
        let cwd = std::env::current_dir()
            .map_err(|e| CliError::user(format!("cannot read the current directory: {e}")))?;
        cwd.join(base).join(file)
    };
    // Resolve symlinks in the directories (the root is canonical) but not in the file itself,
    // which may be deleted or a symlink that is part of the fix.
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    let name = normal.file_name().ok_or_else(outside)?.to_owned();
    let parent = normal.parent().ok_or_else(outside)?;
    let (existing, rest) = existing_ancestor(parent);
    let canonical = existing
        .canonicalize()
        .map_err(|e| CliError::user(format!("{}: {e}", existing.display())))?;
    let full = canonical.join(rest).join(name);
    let rel = full.strip_prefix(root).map_err(|_| outside())?;
    if rel.as_os_str().is_empty() {
        return Err(outside());
    }
    Ok(rel.to_path_buf())
}

/// The deepest existing ancestor of `dir`, and the missing part below it.
fn existing_ancestor(dir: &Path) -> (PathBuf, PathBuf) {
    let mut existing = dir.to_path_buf();
    let mut missing = Vec::new();
    while !existing.exists() {
        match (
            existing.file_name().map(ToOwned::to_owned),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                missing.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let rest: PathBuf = missing.iter().rev().collect();
    (existing, rest)
}
