//! Issue 27, point 7: an LFS pointer is never edited (the refusal names the real file), a
//! required filter whose program is missing (git-lfs) does not stop checkpoints, undo or
//! restore, and a hint names only options the command has.

use crate::support::{Run, Tree};

fn salve(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

const POINTER: &str = "version https://git-lfs.github.com/spec/v1\n\
oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n\
size 12345\n";

/// A repository with an LFS pointer committed, then git-lfs configured as required, as
/// `git lfs install` leaves it, but with no git-lfs program on the machine.
fn lfs_repo() -> Tree {
    let tree = Tree::git();
    tree.write(
        ".gitattributes",
        "*.bin filter=lfs diff=lfs merge=lfs -text\n",
    )
    .write("model.bin", POINTER)
    .write("x.py", "x = 1\n");
    tree.commit("initial");
    tree.git_cmd(&["config", "filter.lfs.required", "true"]);
    tree.git_cmd(&["config", "filter.lfs.clean", "git-lfs clean -- %f"]);
    tree.git_cmd(&["config", "filter.lfs.smudge", "git-lfs smudge -- %f"]);
    tree.git_cmd(&["config", "filter.lfs.process", "git-lfs filter-process"]);
    tree
}

/// `git status` as git can give it without the missing program.
fn status(tree: &Tree) -> String {
    tree.git_cmd(&[
        "-c",
        "filter.lfs.process=",
        "-c",
        "filter.lfs.clean=",
        "-c",
        "filter.lfs.required=false",
        "status",
        "--porcelain",
    ])
}

#[test]
fn an_lfs_pointer_is_refused_by_name_and_left_alone() {
    let tree = lfs_repo();
    let reply = "model.bin\n<<<<<<< SEARCH\nsize 12345\n=======\nsize 99\n>>>>>>> REPLACE\n";
    for args in [&["--check"][..], &[]] {
        let run = tree.apply(reply, args);
        run.code(1);
        assert!(
            run.stdout.contains("`model.bin` is a Git LFS pointer"),
            "{run:?}"
        );
        assert!(run.stdout.contains("12345 bytes"), "{run:?}");
    }
    assert_eq!(tree.read("model.bin"), POINTER);
    assert_eq!(status(&tree), "");
}

#[test]
fn apply_undo_redo_and_force_work_with_the_required_filter_missing() {
    let tree = lfs_repo();
    // Stat-dirty, so git would run the clean filter for it.
    std::fs::write(tree.path("model.bin"), POINTER).unwrap();
    let index = tree.git_cmd(&["ls-files", "-s"]);
    let reply = "x.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
    tree.apply(reply, &[]).code(0);
    assert_eq!(tree.read("x.py"), "x = 2\n");
    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("x.py"), "x = 1\n");
    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("x.py"), "x = 2\n");
    let forced = salve(&tree, &["undo", "--force"]);
    forced.code(0);
    assert!(forced.stdout.contains("1 written"), "{}", forced.stdout);
    assert_eq!(tree.read("x.py"), "x = 1\n");
    assert_eq!(tree.read("model.bin"), POINTER);
    assert_eq!(tree.git_cmd(&["ls-files", "-s"]), index);
    assert_eq!(status(&tree), "");
}

#[test]
fn a_failed_checkpoint_hint_names_no_checkpoint_only_for_apply() {
    let tree = Tree::git();
    tree.write("x.py", "x = 1\n");
    tree.commit("initial");
    let reply = "x.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
    tree.apply(reply, &[]).code(0);
    // A broken index: no checkpoint can be taken.
    std::fs::write(tree.path(".git/index"), "garbage").unwrap();
    for args in [&["undo"][..], &["undo", "--force"], &["checkpoint"]] {
        let run = salve(&tree, args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.contains("Hint:"), "{args:?}: {}", run.stderr);
        assert!(
            !run.stderr.contains("--no-checkpoint"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(tree.read("x.py"), "x = 2\n");
    let again = "x.py\n<<<<<<< SEARCH\nx = 2\n=======\nx = 3\n>>>>>>> REPLACE\n";
    let apply = tree.apply(again, &[]);
    apply.code(2);
    assert!(apply.stderr.contains("--no-checkpoint"), "{}", apply.stderr);
    assert_eq!(tree.read("x.py"), "x = 2\n");
}
