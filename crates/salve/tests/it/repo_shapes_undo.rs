//! Issue 27, point 3 (and the ignored file of point 8): in a sparse checkout, and for ignored
//! files a reply creates, undo, redo and `undo --force` do what they say, and an undo that
//! cannot bring a file back fails and names it.

use crate::support::{Run, Tree};

fn salve(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

fn sparse_repo() -> Tree {
    let tree = Tree::git();
    tree.write("a/x.py", "x = 1\n").write("b/y.py", "y = 1\n");
    tree.commit("initial");
    tree.git_cmd(&["sparse-checkout", "set", "a"]);
    assert!(!tree.exists("b/y.py"));
    tree
}

const OUTSIDE_CONE: &str = "b/z.py\n```python\nz = 2\n```\n";

#[test]
fn sparse_checkout_file_outside_the_cone_is_undone_redone_and_forced() {
    let tree = sparse_repo();
    let index = tree.git_cmd(&["ls-files", "-s", "-t"]);
    tree.apply(OUTSIDE_CONE, &[]).code(0);
    assert_eq!(tree.read("b/z.py"), "z = 2\n");

    let undo = salve(&tree, &["undo"]);
    undo.code(0);
    assert!(undo.stdout.contains("b/z.py"), "{}", undo.stdout);
    assert!(!tree.exists("b/z.py"));
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
    assert_eq!(tree.git_cmd(&["ls-files", "-s", "-t"]), index);

    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("b/z.py"), "z = 2\n");

    let forced = salve(&tree, &["undo", "--force"]);
    forced.code(0);
    assert!(forced.stdout.contains("1 deleted"), "{}", forced.stdout);
    assert!(!tree.exists("b/z.py"));
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
    assert_eq!(tree.git_cmd(&["ls-files", "-s", "-t"]), index);
}

#[test]
fn ignored_file_created_by_a_reply_goes_with_undo_force_and_after_a_redo() {
    let tree = Tree::git();
    tree.write(".gitignore", "*.log\n").write("x.py", "x = 1\n");
    tree.commit("initial");
    let reply = "debug.log\n```\nhello\n```\n";
    tree.apply(reply, &[]).code(0);
    let forced = salve(&tree, &["undo", "--force"]);
    forced.code(0);
    assert!(forced.stdout.contains("1 deleted"), "{}", forced.stdout);
    assert!(!tree.exists("debug.log"));
    // Undoing the forced undo brings it back; undo, redo, undo after that too.
    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("debug.log"), "hello\n");
    salve(&tree, &["undo"]).code(0);
    assert!(!tree.exists("debug.log"));
    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("debug.log"), "hello\n");
    salve(&tree, &["undo"]).code(0);
    assert!(!tree.exists("debug.log"));
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
}

#[test]
fn undo_force_that_cannot_bring_a_file_back_fails_and_names_it() {
    let tree = Tree::git();
    tree.write("x.py", "x = 1\n");
    tree.commit("initial");
    tree.apply("sub/a.py\n```python\na = 1\n```\n", &[]).code(0);
    // The directory the reply wrote into became a repository of its own since.
    tree.git_cmd(&["-C", "sub", "init", "-q"]);
    let forced = salve(&tree, &["undo", "--force"]);
    assert_ne!(forced.code, 0, "{}", forced.stdout);
    assert_eq!(forced.code, 1, "{forced:?}");
    assert!(
        forced
            .stderr
            .contains("not brought back: sub/a.py (it is inside the repository sub)"),
        "{}",
        forced.stderr
    );
    assert!(!forced.stdout.contains("undid"), "{}", forced.stdout);
    assert_eq!(tree.read("sub/a.py"), "a = 1\n");
}

#[test]
fn a_tracked_file_outside_the_cone_is_not_created_behind_gits_back() {
    let tree = sparse_repo();
    let index = tree.git_cmd(&["ls-files", "-s", "-t"]);
    let run = tree.apply("b/y.py\n```python\ny = 2\n```\n", &[]);
    run.code(1);
    assert!(
        run.stdout.contains("outside the sparse checkout"),
        "{run:?}"
    );
    assert!(!tree.exists("b/y.py"));
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
    assert_eq!(tree.git_cmd(&["ls-files", "-s", "-t"]), index);
}

#[test]
fn a_tracked_file_turned_directory_is_checkpointed_whole_and_restored() {
    // `a.txt` is tracked; the user replaced it by a directory holding a file. A checkpoint taken
    // then must hold the directory's file (the in-process tree builder meets a tracked path
    // that is a directory now), undo must leave the user's later edit of it alone, and
    // restoring the checkpoint must bring back what the directory held.
    let tree = Tree::git();
    tree.write("a.txt", "one\n").write("m.py", "x = 1\n");
    tree.commit("initial");
    std::fs::remove_file(tree.path("a.txt")).unwrap();
    tree.write("a.txt/in.txt", "inner\n");
    let applied = tree.apply("m.py\n```python\nx = 2\n```\n", &["--json"]);
    applied.code(0);
    let checkpoint = applied.json()["checkpoint"].as_str().unwrap().to_owned();
    tree.write("a.txt/in.txt", "changed later\n");

    let undo = salve(&tree, &["undo"]);
    undo.code(0);
    assert_eq!(tree.read("m.py"), "x = 1\n");
    assert_eq!(tree.read("a.txt/in.txt"), "changed later\n");

    salve(&tree, &["restore", &checkpoint]).code(0);
    assert_eq!(tree.read("a.txt/in.txt"), "inner\n");
    assert_eq!(tree.read("m.py"), "x = 1\n");
    // The restore itself can be undone: the later edit comes back.
    salve(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("a.txt/in.txt"), "changed later\n");
}
