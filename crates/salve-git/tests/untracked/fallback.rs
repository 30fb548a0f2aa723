//! Each fallback trigger: the listing comes from git, and is git's.

use std::path::{Path, PathBuf};

use salve_git::{untracked, Repo};

use super::{assert_same_as_git, fresh_home, git, ENV};

/// A small repository for one fallback trigger: tracked, untracked and ignored files and an
/// untracked directory.
fn small_tree(home: &Path) -> PathBuf {
    let root = home.join("tree");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("new/deep")).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(root.join("src/a.txt"), "a\n").unwrap();
    std::fs::write(root.join("src/b.txt"), "b\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "c"]);
    std::fs::write(root.join("src/c.txt"), "c\n").unwrap();
    std::fs::write(root.join("src/x.log"), "x\n").unwrap();
    std::fs::write(root.join("new/deep/d.txt"), "d\n").unwrap();
    root
}

/// `set_up` changes the tree (or the environment); the listing must then come from git, and
/// equal git's.
fn falls_back(set_up: impl FnOnce(&Path, &Path)) {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = small_tree(home.path());
    let (inside, _, _) = assert_same_as_git(&root, "before");
    assert!(inside, "the plain tree is listed in process");
    let root = {
        let other = home.path().join("tree2");
        std::fs::rename(&root, &other).unwrap();
        other
    };
    set_up(&root, home.path());
    let repo = Repo::discover(&root).unwrap();
    assert!(
        untracked::in_process(&repo).unwrap().is_none(),
        "falls back"
    );
    let (inside, top, _) = assert_same_as_git(&root, "after");
    assert!(!inside && top > 0);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GIT_TEST") {
            std::env::remove_var(key);
        }
    }
}

#[test]
fn an_unknown_git_variable_falls_back() {
    falls_back(|_, _| std::env::set_var("GIT_TEST_UNTRACKED_CACHE", "1"));
}

#[test]
fn an_excludes_file_in_the_repository_config_falls_back() {
    falls_back(|root, home| {
        std::fs::write(home.join("local-ignore"), "c.txt\n").unwrap();
        let value = home.join("local-ignore").display().to_string();
        git(root, &["config", "core.excludesFile", &value]);
    });
}

#[test]
fn an_include_in_the_global_config_falls_back() {
    falls_back(|_, home| {
        std::fs::write(home.join("more.cfg"), "[core]\n\texcludesFile = ~/g\n").unwrap();
        std::fs::write(home.join("g"), "c.txt\n").unwrap();
        std::fs::write(home.join(".gitconfig"), "[include]\n\tpath = ~/more.cfg\n").unwrap();
    });
}

#[test]
fn ignore_case_falls_back() {
    falls_back(|root, _| {
        git(root, &["config", "core.ignoreCase", "true"]);
    });
}

#[test]
fn a_skip_worktree_entry_falls_back() {
    falls_back(|root, _| {
        git(root, &["update-index", "--skip-worktree", "src/a.txt"]);
    });
}

#[test]
fn a_sparse_checkout_falls_back() {
    falls_back(|root, _| {
        git(root, &["sparse-checkout", "set", "--no-cone", "/src/"]);
    });
}

#[test]
fn a_split_index_falls_back() {
    falls_back(|root, _| {
        git(root, &["update-index", "--split-index"]);
    });
}

#[test]
fn a_submodule_falls_back() {
    falls_back(|root, _| {
        let id = String::from_utf8(git(root, &["rev-parse", "HEAD"])).unwrap();
        let info = format!("160000,{},sub", id.trim());
        git(root, &["update-index", "--add", "--cacheinfo", &info]);
    });
}

#[test]
fn a_linked_worktree_falls_back() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = small_tree(home.path());
    git(&root, &["worktree", "add", "-q", "../linked"]);
    let linked = root.with_file_name("linked");
    std::fs::write(linked.join("new.txt"), "n\n").unwrap();
    let repo = Repo::discover(&linked).unwrap();
    assert!(untracked::in_process(&repo).unwrap().is_none());
    let (inside, top, _) = assert_same_as_git(&linked, "linked worktree");
    assert!(!inside && top == 1);
}

#[test]
fn a_symlinked_gitignore_falls_back() {
    falls_back(|root, _| {
        std::fs::write(root.join("new/rules"), "*.txt\n").unwrap();
        std::os::unix::fs::symlink("rules", root.join("new/.gitignore")).unwrap();
    });
}

#[test]
fn a_named_character_class_falls_back() {
    falls_back(|root, _| {
        std::fs::write(root.join("src/.gitignore"), "[[:digit:]]*\n").unwrap();
    });
}

#[test]
fn a_gitfile_below_the_root_falls_back() {
    falls_back(|root, _| {
        std::fs::write(root.join("new/.git"), "gitdir: /nowhere\n").unwrap();
    });
}

#[test]
fn scrubbed_variables_and_index_version_4_stay_in_process() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = small_tree(home.path());
    git(&root, &["update-index", "--index-version", "4"]);
    std::env::set_var("GIT_DIR", "/nowhere");
    std::env::set_var("GIT_INDEX_FILE", "/nowhere/index");
    std::env::set_var("GIT_SSL_CAINFO", "/nowhere/ca.crt");
    let (inside, top, below) = assert_same_as_git(&root, "index v4 with GIT_DIR set");
    std::env::remove_var("GIT_DIR");
    std::env::remove_var("GIT_INDEX_FILE");
    std::env::remove_var("GIT_SSL_CAINFO");
    assert!(inside && top == 2 && below == 1, "{top} {below}");
}

/// The untracked cache only makes git's walk faster: with it in the index (`UNTR`), the
/// listing stays in process and still equals git's.
#[test]
fn the_untracked_cache_stays_in_process() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = small_tree(home.path());
    git(&root, &["config", "core.untrackedCache", "true"]);
    git(&root, &["update-index", "--untracked-cache"]);
    git(&root, &["status", "--porcelain"]);
    let index = std::fs::read(root.join(".git/index")).unwrap();
    assert!(
        index.windows(4).any(|w| w == b"UNTR"),
        "the index holds the cache"
    );
    std::fs::write(root.join("new/deep/e.txt"), "e\n").unwrap();
    let (inside, top, below) = assert_same_as_git(&root, "with the untracked cache");
    assert!(inside && top == 2 && below == 2, "{top} {below}");
}

/// Another object format (`extensions.objectFormat`) changes the index's layout: left to git.
#[test]
fn a_sha256_repository_falls_back() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = home.path().join("sha256");
    std::fs::create_dir_all(root.join("d")).unwrap();
    git(&root, &["init", "-q", "--object-format=sha256"]);
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    git(&root, &["add", "a.txt"]);
    std::fs::write(root.join("d/b.txt"), "b\n").unwrap();
    std::fs::write(root.join("c.txt"), "c\n").unwrap();
    let repo = Repo::discover(&root).unwrap();
    assert!(untracked::in_process(&repo).unwrap().is_none());
    let (inside, top, below) = assert_same_as_git(&root, "sha256");
    assert!(!inside && top == 2 && below == 1, "{top} {below}");
}
