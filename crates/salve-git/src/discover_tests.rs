//! The in-process discovery against git's own answers, on real repositories.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A repository with one commit and a nested directory, under a canonical temporary path.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap().join("work");
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("src/deep/a.txt"), "a\n").unwrap();
    git(&root, &["add", "-A"]);
    git(
        &root,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "one",
        ],
    );
    (tmp, root)
}

/// What git says: the work tree root, the prefix and the git directory.
fn by_git(dir: &Path) -> Found {
    let out = git(
        dir,
        &[
            "rev-parse",
            "--show-toplevel",
            "--show-prefix",
            "--absolute-git-dir",
        ],
    );
    let mut lines = out.lines();
    Found {
        root: PathBuf::from(lines.next().unwrap()),
        prefix: lines.next().unwrap().to_owned(),
        git_dir: PathBuf::from(lines.next().unwrap()),
    }
}

#[test]
fn the_ordinary_layout_gives_gits_answer_at_the_root_and_below() {
    let (_tmp, root) = repo();
    for dir in [root.clone(), root.join("src"), root.join("src/deep")] {
        assert_eq!(in_process(&dir), Some(by_git(&dir)), "{}", dir.display());
    }
}

#[test]
fn a_linked_worktree_gives_gits_answer() {
    let (tmp, root) = repo();
    let linked = tmp.path().canonicalize().unwrap().join("linked");
    git(
        &root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            linked.to_str().unwrap(),
        ],
    );
    let dir = linked.join("src");
    let found = in_process(&dir).expect("a linked worktree is an ordinary layout");
    assert_eq!(found, by_git(&dir));
}

#[test]
fn a_nested_repository_is_its_own() {
    let (_tmp, root) = repo();
    let inner = root.join("src/inner");
    std::fs::create_dir_all(&inner).unwrap();
    git(&inner, &["init", "-q"]);
    assert_eq!(in_process(&inner), Some(by_git(&inner)));
}

#[test]
fn unusual_layouts_are_left_to_git() {
    let (_tmp, root) = repo();
    // Inside the git directory: git has no work tree there.
    assert_eq!(in_process(&root.join(".git")), None);
    assert_eq!(in_process(&root.join(".git/objects")), None);
    // A configured work tree elsewhere.
    git(&root, &["config", "core.worktree", root.to_str().unwrap()]);
    assert_eq!(in_process(&root), None);
    git(&root, &["config", "--unset", "core.worktree"]);
    assert!(in_process(&root).is_some());
    // An include could set anything.
    git(&root, &["config", "include.path", "/dev/null"]);
    assert_eq!(in_process(&root), None);
}

#[test]
fn no_repository_is_not_found() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    // Only when no directory above the temporary one is a repository, as on CI machines.
    if Command::new("git")
        .args(["rev-parse"])
        .current_dir(&dir)
        .output()
        .unwrap()
        .status
        .success()
    {
        return;
    }
    assert_eq!(in_process(&dir), None);
}

#[test]
fn config_that_moves_the_work_tree_sends_the_question_to_git() {
    let plain = |text: &str| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(&path, text).unwrap();
        plain_config(&path)
    };
    let ordinary = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";
    assert!(plain(ordinary));
    assert!(!plain("[core]\n\tbare = true\n"));
    assert!(!plain("[core]\n\tworktree = /elsewhere\n"));
    assert!(!plain("[include]\n\tpath = other.conf\n"));
    assert!(!plain("[includeIf \"gitdir:~/x/\"]\n\tpath = x.conf\n"));
    assert!(!plain("[extensions]\n\trefStorage = reftable\n"));
    assert!(!plain("[core]\n\tWorkTree=/elsewhere\n"));
}
