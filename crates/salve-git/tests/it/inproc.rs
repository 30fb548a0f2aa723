//! The trees a checkpoint builds in process are byte for byte the trees git builds:
//! `write-tree` of the index for the staged state, `add -A` + `write-tree` on a copy of the
//! index for the work tree.

use std::process::Command;

use salve_git::checkpoint::create;

use crate::support::TestRepo;

/// git's own trees: (work tree, staged state), from a scratch copy of the index.
fn git_trees(t: &TestRepo) -> (String, String) {
    let scratch = t.root.join(".git/compare-index");
    std::fs::copy(t.root.join(".git/index"), &scratch).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&t.root)
            .env("GIT_INDEX_FILE", &scratch)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    let staged = git(&["write-tree"]);
    git(&["add", "-A"]);
    let work = git(&["write-tree"]);
    std::fs::remove_file(&scratch).unwrap();
    (work, staged)
}

fn ours(t: &TestRepo) -> Option<(String, String)> {
    create::in_process_trees(&t.repo(), &create::Options::default()).unwrap()
}

/// Every kind of change `add -A` sees, in one repository.
fn busy_repo() -> TestRepo {
    let t = TestRepo::new();
    t.write(".gitignore", "*.log\nbuild/\n");
    t.write("a.txt", "alpha\n");
    t.write("a-", "dash\n");
    t.write("a.b", "dot\n");
    t.write("a/inner.txt", "slash sorts after dot\n");
    t.write("dir/b.txt", "bee\n");
    t.write("dir/sub/c.txt", "sea\n");
    t.write("exec.sh", "#!/bin/sh\n");
    t.chmod("exec.sh", 0o755);
    t.write("mode.txt", "becomes executable\n");
    t.write("crlf.txt", "one\r\ntwo\r\n");
    t.write("gone.txt", "deleted later\n");
    t.write("sp ace.txt", "space\n");
    t.symlink("a.txt", "link");
    t.commit_all("init");

    t.write("a.txt", "ALPHA\n"); // same size, new bytes, just after the index was written
    t.remove("gone.txt");
    t.chmod("mode.txt", 0o755);
    t.chmod("exec.sh", 0o644);
    t.write("dir/b.txt", "staged\n");
    t.git(&["add", "dir/b.txt"]);
    t.write("dir/b.txt", "staged, then changed again\n");
    t.write("new/deep/d.txt", "untracked deep\n");
    t.write("u.txt", "untracked\n");
    t.write("crlf-new.txt", "x\r\ny\r\n");
    t.write("debug.log", "ignored\n");
    t.write("build/out.o", "ignored dir\n");
    t.symlink("dir", "dirlink");
    t.remove("link");
    t.symlink("dir/b.txt", "link");
    t
}

#[test]
fn in_process_trees_equal_gits_for_every_kind_of_change() {
    let t = busy_repo();
    let ours = ours(&t).expect("this repository is built in process");
    assert_eq!(ours, git_trees(&t));
    // And again once the user's index has caught up (nothing racy, all from the stat cache).
    t.git(&["add", "-A"]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    t.git(&["update-index", "--really-refresh"]);
    assert_eq!(self::ours(&t).unwrap(), git_trees(&t));
    // Index version 4 compresses paths; version 3 has extended flags.
    t.write("new/deep/e.txt", "more\n");
    for version in ["4", "3", "2"] {
        t.git(&["update-index", "--index-version", version]);
        assert_eq!(
            self::ours(&t).unwrap(),
            git_trees(&t),
            "index version {version}"
        );
    }
}

#[test]
fn in_process_trees_equal_gits_without_commits_or_index() {
    let t = TestRepo::new();
    t.write("only/untracked.txt", "u\n");
    t.write("top.txt", "t\n");
    let ours = ours(&t).expect("built in process");
    t.git(&["read-tree", "--empty"]);
    assert_eq!(ours, git_trees(&t));
}

#[test]
fn conversions_and_odd_changes_are_left_to_git() {
    let t = busy_repo();
    // A tracked file replaced by a directory: git's collapsed untracked listing hides what is
    // in it, so git builds this one.
    t.write("f", "a file\n");
    t.commit_all("f");
    t.remove("f");
    t.write("f/g.txt", "now a directory\n");
    assert_eq!(ours(&t), None);
    let taken = salve_git::checkpoint::create(&t.repo(), &create::Options::default()).unwrap();
    assert_eq!(taken.tree, git_trees(&t).0);
    t.remove("f");

    t.git(&["config", "core.autocrlf", "true"]);
    assert_eq!(ours(&t), None, "autocrlf converts CRLF on add");
    t.git(&["config", "core.autocrlf", "false"]);
    assert!(ours(&t).is_some());
    t.write("sub/.gitattributes", "*.txt text=auto\n");
    assert_eq!(ours(&t), None, "attributes may convert");
    t.remove("sub");
    t.write("sub/.gitattributes", "*.png binary\n");
    assert!(ours(&t).is_some(), "attributes that convert nothing");

    // The whole checkpoint still captures git's trees where git builds them.
    t.git(&["config", "core.autocrlf", "true"]);
    let taken = salve_git::checkpoint::create(&t.repo(), &create::Options::default()).unwrap();
    let (work, staged) = git_trees(&t);
    assert_eq!((taken.tree, taken.index_tree), (work, Some(staged)));
}

#[test]
fn a_configuration_included_on_one_branch_counts_once_that_branch_is_checked_out() {
    // `includeIf "onbranch:..."` brings a file in by the branch checked out, which no
    // configuration file's change shows: the kept answer must follow HEAD as well.
    let t = TestRepo::new();
    t.write("a.txt", "one\r\ntwo\r\n");
    t.commit_all("init");
    std::fs::write(t.root.join(".git/crlf.inc"), "[core]\n\tautocrlf = true\n").unwrap();
    t.git(&["config", "includeIf.onbranch:feature.path", "crlf.inc"]);
    assert!(ours(&t).is_some(), "on the first branch nothing converts");
    t.git(&["checkout", "-q", "-b", "feature"]);
    assert_eq!(ours(&t), None, "on `feature` autocrlf converts CRLF on add");
    t.git(&["checkout", "-q", "-"]);
    assert!(ours(&t).is_some(), "back on the first branch");
}
