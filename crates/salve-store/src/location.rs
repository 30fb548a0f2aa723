//! Where the record lives. In a git repository: `salve/` inside the *common* git directory
//! (`git rev-parse --git-common-dir`), so every linked worktree of a repository shares one record
//! and nothing shows up in `git status`. Outside one: `.salve/` in the directory salve runs in.

use std::path::{Path, PathBuf};

use salve_git::{Git, GitError};

/// The record's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The directory holding everything below.
    pub dir: PathBuf,
    /// The SQLite database, `salve.db`.
    pub db: PathBuf,
    /// The content-addressed artifacts, `objects/<2 hex>/<62 hex>`.
    pub objects: PathBuf,
    /// Whether `dir` is inside a git directory (as opposed to `.salve/` in a plain directory).
    pub in_git: bool,
}

impl Layout {
    /// The layout rooted at `dir` (the `salve` or `.salve` directory itself).
    pub fn at(dir: impl Into<PathBuf>, in_git: bool) -> Layout {
        let dir = dir.into();
        Layout {
            db: dir.join("salve.db"),
            objects: dir.join("objects"),
            dir,
            in_git,
        }
    }

    /// The layout for work done in `dir`: the repository's common git directory when `dir` is
    /// in one, else `dir/.salve`. Runs one `git rev-parse`; git missing counts as "not in a
    /// repository".
    pub fn locate(dir: &Path) -> Layout {
        match common_git_dir(dir) {
            Some(git_dir) => Layout::at(git_dir.join("salve"), true),
            None => Layout::at(dir.join(".salve"), false),
        }
    }
}

/// The common git directory of the repository holding `dir`, absolute when git says so and
/// joined to `dir` when git answers relative to it.
fn common_git_dir(dir: &Path) -> Option<PathBuf> {
    let out = match Git::new(dir)
        .args(["rev-parse", "--git-common-dir"])
        .output()
    {
        Ok(out) => out,
        Err(GitError::NotFound | GitError::Spawn(_)) => return None,
        Err(_) => return None,
    };
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim_end_matches(['\n', '\r']);
    if text.is_empty() {
        return None;
    }
    let path = PathBuf::from(text);
    Some(if path.is_absolute() {
        path
    } else {
        dir.join(path)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn plain_directory_uses_dot_salve() {
        let tmp = tempfile::tempdir().unwrap();
        let layout = Layout::locate(tmp.path());
        assert!(!layout.in_git);
        assert_eq!(layout.db, tmp.path().join(".salve").join("salve.db"));
    }

    #[test]
    fn linked_worktrees_share_the_common_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("main");
        std::fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q", "-b", "main"]);
        git(
            &main,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t.invalid",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "x",
            ],
        );
        git(
            &main,
            &["worktree", "add", "-q", "../linked", "-b", "other"],
        );
        let sub = main.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let from_main = Layout::locate(&sub);
        let from_linked = Layout::locate(&tmp.path().join("linked"));
        assert!(from_main.in_git && from_linked.in_git);
        let canon = |p: &Path| p.parent().unwrap().canonicalize().unwrap();
        // salve/ does not exist yet; compare the git directories that hold it.
        assert_eq!(canon(&from_main.dir), canon(&from_linked.dir));
        assert_eq!(
            canon(&from_main.dir),
            main.join(".git").canonicalize().unwrap()
        );
    }
}
