//! Running the repository's commit hooks the way `git commit` would.
//!
//! The hook is found with `git rev-parse --git-path hooks/<name>`, which follows
//! `core.hooksPath` and linked worktrees. It runs at the work tree root with `GIT_INDEX_FILE`
//! pointing at the temporary index that holds exactly the commit's content, so a pre-commit
//! hook checks what will be committed and not the user's other staged work.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::cmd::{GitError, SCRUBBED_VARS};
use crate::repo::Repo;

/// A hook that exited non-zero.
#[derive(Debug)]
pub(crate) struct HookFailure {
    pub code: i32,
    pub output: String,
}

/// Run hook `name` if the repository has an executable one.
pub(crate) fn run(
    repo: &Repo,
    name: &str,
    args: &[&OsStr],
    index: &Path,
) -> Result<Result<(), HookFailure>, GitError> {
    let path = repo.git_path(&format!("hooks/{name}"))?;
    if !is_executable(&path) {
        return Ok(Ok(()));
    }
    let mut command = Command::new(&path);
    command.args(args).current_dir(&repo.root);
    for var in SCRUBBED_VARS {
        command.env_remove(var);
    }
    let out = command
        .env("GIT_INDEX_FILE", index)
        .env("GIT_EDITOR", ":")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| GitError::io(format!("running hook {}", path.display()), e))?;
    if out.status.success() {
        return Ok(Ok(()));
    }
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok(Err(HookFailure {
        code: out.status.code().unwrap_or(-1),
        output: output.trim().to_owned(),
    }))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}
