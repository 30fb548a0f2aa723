//! Where the record lives. In a git repository: `salve/` inside the *common* git directory
//! (`git rev-parse --git-common-dir`), so every linked worktree of a repository shares one record
//! and nothing shows up in `git status`. Outside one: `.salve/` in the directory salve runs in,
//! used only when it exists (see [`Store::open`](crate::Store::open)).

use std::path::{Path, PathBuf};

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
    /// in one, else `dir/.salve`.
    pub fn locate(dir: &Path) -> Layout {
        match common_git_dir(dir) {
            Some(git_dir) => Layout::at(git_dir.join("salve"), true),
            None => Layout::at(dir.join(".salve"), false),
        }
    }
}

/// The common git directory of the repository holding `dir`: what `git rev-parse
/// --git-common-dir` answers, found the way git finds it but without starting git, because
/// every recorded apply pays for this lookup. Walks up from `dir` to the first `.git` that is a
/// git directory (or a `gitdir:` file pointing at one, as in a linked worktree or a submodule),
/// then follows its `commondir` file when it has one.
fn common_git_dir(dir: &Path) -> Option<PathBuf> {
    let start = dir.canonicalize().ok()?;
    for d in start.ancestors() {
        let dotgit = d.join(".git");
        let Ok(meta) = std::fs::metadata(&dotgit) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dotgit
        } else {
            match gitdir_file(&dotgit) {
                Some(target) => d.join(target),
                None => continue,
            }
        };
        // git skips a `.git` that is not a repository and keeps looking above it.
        if !git_dir.join("HEAD").is_file() {
            continue;
        }
        return Some(match read_trimmed(&git_dir.join("commondir")) {
            Some(common) => git_dir.join(common),
            None => git_dir,
        });
    }
    None
}

/// The target of a `.git` file (`gitdir: PATH`).
fn gitdir_file(path: &Path) -> Option<PathBuf> {
    let text = read_trimmed(path)?;
    let target = text.strip_prefix("gitdir:")?.trim();
    (!target.is_empty()).then(|| PathBuf::from(target))
}

fn read_trimmed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim_end_matches(['\n', '\r']);
    (!text.is_empty()).then(|| text.to_owned())
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
    fn a_dot_git_that_is_no_repository_is_passed_over() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().join("top");
        std::fs::create_dir(&top).unwrap();
        git(&top, &["init", "-q", "-b", "main"]);
        let inner = top.join("inner");
        std::fs::create_dir_all(inner.join(".git")).unwrap();
        let layout = Layout::locate(&inner);
        assert!(layout.in_git);
        assert_eq!(
            layout.dir.parent().unwrap().canonicalize().unwrap(),
            top.join(".git").canonicalize().unwrap()
        );
        // A directory that does not exist is in no repository.
        assert!(!Layout::locate(&tmp.path().join("missing")).in_git);
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
