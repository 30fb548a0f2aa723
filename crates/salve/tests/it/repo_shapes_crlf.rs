//! Issue 27, points 1 and 2: under line-ending conversion (`core.autocrlf`, `eol` attributes)
//! a 3-way merge works in one representation, and restore, redo and `undo --force` bring back
//! the bytes that were on disk, not git's conversion of them.

use crate::support::{Run, Tree};

fn salve(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

fn bytes(tree: &Tree, rel: &str) -> Vec<u8> {
    std::fs::read(tree.path(rel)).unwrap()
}

fn checkpoint(tree: &Tree) -> String {
    let taken = salve(tree, &["checkpoint", "--json"]);
    taken.code(0).json()["id"].as_str().unwrap().to_owned()
}

/// What git says about the tree: status and the index.
fn git_state(tree: &Tree) -> (String, String) {
    (
        tree.git_cmd(&["status", "--porcelain"]),
        tree.git_cmd(&["ls-files", "-s"]),
    )
}

const CRLF: &[u8] = b"a = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\ne = 5\r\nf = 6\r\n";

#[test]
fn three_way_merge_of_a_dirty_crlf_file_under_autocrlf() {
    let tree = Tree::git();
    tree.git_cmd(&["config", "core.autocrlf", "true"]);
    tree.write("m.py", CRLF);
    tree.commit("initial");
    // A clean CRLF checkout is no change: its checkpoint counts no file against HEAD.
    checkpoint(&tree);
    let listed = salve(&tree, &["checkpoints", "--json"]);
    assert_eq!(listed.code(0).json()[0]["files_changed"], 0);
    // Stored LF, CRLF on disk; then a local change on line 4.
    assert_eq!(
        tree.git_cmd(&["cat-file", "-p", "HEAD:m.py"]),
        "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n"
    );
    let dirty = b"a = 1\r\nb = 2\r\nc = 3\r\nd = 40\r\ne = 5\r\nf = 6\r\n";
    tree.write("m.py", dirty);
    let state = git_state(&tree);
    let whole = "m.py\n```python\na = 1\nb = 20\nc = 3\nd = 4\ne = 5\nf = 6\n```\n";
    let applied = tree.apply(whole, &[]);
    applied.code(0);
    assert!(applied.stdout.contains("three_way"), "{}", applied.stdout);
    assert_eq!(
        bytes(&tree, "m.py"),
        b"a = 1\r\nb = 20\r\nc = 3\r\nd = 40\r\ne = 5\r\nf = 6\r\n"
    );
    assert_eq!(git_state(&tree), state);
    salve(&tree, &["undo"]).code(0);
    assert_eq!(bytes(&tree, "m.py"), dirty);
    assert_eq!(git_state(&tree), state);
}

#[test]
fn three_way_merge_of_a_diff_whose_context_changed_under_autocrlf() {
    let tree = Tree::git();
    tree.git_cmd(&["config", "core.autocrlf", "true"]);
    tree.write("m.py", CRLF);
    tree.commit("initial");
    tree.write(
        "m.py",
        b"a = 1\r\nb = 2\r\nc = 3\r\nd = 40\r\ne = 5\r\nf = 6\r\n".as_slice(),
    );
    // The hunk quotes line 4 as it was committed: only the baseline has it.
    let diff = "--- a/m.py\n+++ b/m.py\n@@ -1,6 +1,6 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n d = 4\n e = 5\n f = 6\n";
    let applied = tree.apply(diff, &[]);
    applied.code(0);
    assert!(applied.stdout.contains("three_way"), "{}", applied.stdout);
    assert_eq!(
        bytes(&tree, "m.py"),
        b"a = 1\r\nb = 20\r\nc = 3\r\nd = 40\r\ne = 5\r\nf = 6\r\n"
    );
}

#[test]
fn restore_under_autocrlf_gives_back_an_lf_checkout_byte_for_byte() {
    let tree = Tree::git();
    tree.write("m.py", "a = 1\nb = 2\n");
    tree.commit("initial");
    tree.git_cmd(&["config", "core.autocrlf", "true"]);
    let state = git_state(&tree);
    let id = checkpoint(&tree);
    tree.write("m.py", "a = 1\nb = 2\nchanged = 3\n");
    let restored = salve(&tree, &["restore", &id]);
    restored.code(0);
    assert!(restored.stdout.contains("1 written"), "{}", restored.stdout);
    assert_eq!(bytes(&tree, "m.py"), b"a = 1\nb = 2\n");
    assert_eq!(git_state(&tree), state);
}

#[test]
fn restore_redo_and_undo_force_keep_crlf_and_mixed_endings_under_eol_lf() {
    let tree = Tree::git();
    tree.write(".gitattributes", "*.sh text eol=lf\n");
    tree.write("a.sh", b"echo 1\r\necho 2\r\n".as_slice());
    tree.write("mixed.sh", b"one\r\ntwo\nthree\r\n".as_slice());
    tree.commit("initial");
    let state = git_state(&tree);
    let a = bytes(&tree, "a.sh");
    let mixed = bytes(&tree, "mixed.sh");

    let id = checkpoint(&tree);
    tree.write("a.sh", "junk\n").write("mixed.sh", "junk\n");
    salve(&tree, &["restore", &id]).code(0);
    assert_eq!(bytes(&tree, "a.sh"), a);
    assert_eq!(bytes(&tree, "mixed.sh"), mixed);
    assert_eq!(git_state(&tree), state);

    // An apply, then `undo --force` (a restore) and its undo (a redo by restore).
    let reply = "mixed.sh\n<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n";
    tree.apply(reply, &[]).code(0);
    let applied = bytes(&tree, "mixed.sh");
    // Unchanged lines keep their own endings.
    assert!(applied.starts_with(b"one\r\nTWO") && applied.ends_with(b"\nthree\r\n"));
    salve(&tree, &["undo", "--force"]).code(0);
    assert_eq!(bytes(&tree, "mixed.sh"), mixed);
    assert_eq!(bytes(&tree, "a.sh"), a);
    assert_eq!(git_state(&tree), state);
    salve(&tree, &["undo"]).code(0);
    assert_eq!(bytes(&tree, "mixed.sh"), applied);
    salve(&tree, &["undo"]).code(0);
    assert_eq!(bytes(&tree, "mixed.sh"), mixed);
    assert_eq!(git_state(&tree), state);
}

/// Issue 23 §8: a new file from a diff, a SEARCH/REPLACE block or a fenced whole file takes
/// CRLF where the files beside it all do (three or more), and LF where they do not; a JSON
/// string's own `\r\n` is written as it says.
#[test]
fn a_new_file_follows_the_line_endings_of_the_files_beside_it() {
    let tree = Tree::git();
    tree.write("win/a.c", "int a;\r\n")
        .write("win/b.c", "int b;\r\n")
        .write("win/c.h", "int c;\r\n")
        .write("unix/a.c", "int a;\n")
        .write("unix/b.c", "int b;\n")
        .write("unix/c.h", "int c;\r\n")
        .commit("init");
    let diff = |path: &str| {
        format!("```diff\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,2 @@\n+int d;\n+int e;\n```\n")
    };
    tree.apply(&diff("win/d.c"), &[]).code(0);
    assert_eq!(bytes(&tree, "win/d.c"), b"int d;\r\nint e;\r\n");
    tree.apply(&diff("unix/d.c"), &[]).code(0);
    assert_eq!(bytes(&tree, "unix/d.c"), b"int d;\nint e;\n");
    let whole = "win/f.c\n```c\nint f;\nint g;\n```\n";
    tree.apply(whole, &[]).code(0);
    assert_eq!(bytes(&tree, "win/f.c"), b"int f;\r\nint g;\r\n");
    let json =
        serde_json::json!({"path": "unix/g.c", "old_string": "", "new_string": "int g;\r\n"});
    tree.apply(&json.to_string(), &[]).code(0);
    assert_eq!(bytes(&tree, "unix/g.c"), b"int g;\r\n");
}
