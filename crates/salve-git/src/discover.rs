//! Finding the repository around a directory without starting git, when that is certain.
//!
//! Every apply asks where the work tree's root is, where the directory sits in it and what HEAD
//! is. `git rev-parse` answers in a few milliseconds, but it is two process starts (with the
//! version check) on the path of every `salve apply`, which for a clean patch is as long as the
//! placing itself. For the ordinary layout the answer can be read from the file system: the
//! nearest `.git` directory (or `.git` file naming one, as linked worktrees and submodules have)
//! above the directory.
//!
//! Git's discovery has rules this module does not reimplement: environment overrides
//! (`GIT_DIR`, `GIT_WORK_TREE`, ceilings, config passed in the environment), `core.worktree`,
//! `core.bare`, includes that could set either, worktree-specific config, the reftable ref
//! store, and the ownership check of `safe.directory`. Whenever any of them could apply, or
//! anything looks unusual, [`in_process`] answers `None` and the caller asks git, so the answer
//! is never different from git's.

use std::path::{Component, Path, PathBuf};

/// The repository around a directory, as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The top of the work tree.
    pub(crate) root: PathBuf,
    /// Where the directory sits in the work tree, `/`-terminated, empty at the root (as
    /// `git rev-parse --show-prefix` prints it).
    pub(crate) prefix: String,
    /// The work tree's git directory (a linked worktree's private one).
    pub(crate) git_dir: PathBuf,
}

/// Environment variables that change how git finds or reads a repository.
const OVERRIDES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_NAMESPACE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
];

/// The repository around `dir` (a canonical directory), or `None` when only git can tell.
pub(crate) fn in_process(dir: &Path) -> Option<Found> {
    if OVERRIDES.iter().any(|v| std::env::var_os(v).is_some()) {
        return None;
    }
    // Inside a git directory git answers differently (no work tree); leave that to it.
    if dir
        .components()
        .any(|c| c == Component::Normal(".git".as_ref()))
    {
        return None;
    }
    let (root, git_dir) = nearest(dir)?;
    let common = common_dir(&git_dir)?;
    if !plain_config(&common.join("config"))
        || git_dir.join("config.worktree").exists()
        || common.join("reftable").exists()
        || !owned_by_us(&[&root, &git_dir, &common])
    {
        return None;
    }
    let rel = dir.strip_prefix(&root).ok()?;
    let mut prefix = String::new();
    for c in rel.components() {
        let Component::Normal(name) = c else {
            return None;
        };
        prefix.push_str(name.to_str()?);
        prefix.push('/');
    }
    Some(Found {
        root,
        prefix,
        git_dir,
    })
}

/// The nearest work tree root at or above `dir`, and its git directory.
fn nearest(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    for at in dir.ancestors() {
        let dot_git = at.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else if meta.is_file() {
            linked_git_dir(&dot_git)?
        } else {
            return None;
        };
        // What git checks before it takes a directory for a repository.
        let looks_valid = git_dir.join("HEAD").is_file()
            && (git_dir.join("objects").is_dir() || git_dir.join("commondir").is_file());
        return looks_valid.then(|| (at.to_path_buf(), git_dir));
    }
    None
}

/// The git directory a `.git` file names (`gitdir: <path>`, relative to the file), as linked
/// worktrees and submodules have it; `None` when the file says nothing readable or names no
/// directory.
pub fn linked_git_dir(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let named = text.strip_prefix("gitdir:")?.trim();
    let path = dot_git.parent()?.join(named);
    std::fs::canonicalize(path).ok().filter(|p| p.is_dir())
}

/// The directory shared by all worktrees: a linked worktree's `commondir` names it.
fn common_dir(git_dir: &Path) -> Option<PathBuf> {
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => std::fs::canonicalize(git_dir.join(text.trim())).ok(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(git_dir.to_path_buf()),
        Err(_) => None,
    }
}

/// Whether the repository's config sets nothing that moves the work tree or marks the
/// repository bare, and includes no other file that could. A conservative scan by key name:
/// a key of that name in any section sends the question to git.
fn plain_config(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    text.lines().all(|line| {
        let line = line.trim_start().to_ascii_lowercase();
        let key = line.split(['=', ' ', '\t']).next().unwrap_or_default();
        !(matches!(
            key,
            "worktree" | "bare" | "refstorage" | "worktreeconfig" | "path"
        ) || line.starts_with("[include")
            || line.starts_with("[extensions"))
            || (key == "bare" && line.split('=').nth(1).is_some_and(|v| v.trim() == "false"))
    })
}

/// Whether every path is owned by the user salve runs as, so that git's ownership check
/// (`safe.directory`) passes without reading any configuration.
#[cfg(unix)]
fn owned_by_us(paths: &[&Path]) -> bool {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    // Run as root with `sudo`, git also accepts the invoking user's repositories: let it judge.
    if me == 0 && std::env::var_os("SUDO_UID").is_some() {
        return false;
    }
    paths
        .iter()
        .all(|p| std::fs::metadata(p).is_ok_and(|m| m.uid() == me))
}

#[cfg(not(unix))]
fn owned_by_us(_paths: &[&Path]) -> bool {
    false
}

#[cfg(test)]
#[path = "discover_tests.rs"]
mod tests;
