//! Files over the default size limit (64 MiB): an apply allowed to write one with
//! `--max-file-size` can be undone, by plain `salve undo` (the limit is remembered in the
//! record) and with the same flag. The file is generated at run time, never committed.

use crate::support::{Run, Tree};

/// About `mb` megabytes of numbered lines.
fn big_text(mb: usize) -> String {
    let line = "a line of a file too large for the default limit, padded to be long enough\n";
    let count = mb * 1024 * 1024 / (line.len() + 8);
    let mut text = String::with_capacity(mb * 1024 * 1024 + 64);
    for i in 0..count {
        text.push_str(&format!("{i:07} {line}"));
    }
    text
}

/// A diff changing the first line of `text`, a file at `path`.
fn first_line_diff(path: &str, text: &str) -> String {
    let mut lines = text.lines();
    let (first, second) = (lines.next().unwrap(), lines.next().unwrap());
    format!("--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n-{first}\n+changed by salve\n {second}\n")
}

/// A repository with a committed file just over 64 MiB, and the diff that edits it.
fn big_repo() -> (Tree, String, String) {
    let tree = Tree::git();
    let text = big_text(65);
    assert!(text.len() > 64 * 1024 * 1024);
    tree.write("data/big.txt", &text);
    tree.commit("big");
    let diff = first_line_diff("data/big.txt", &text);
    (tree, text, diff)
}

fn undo(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().arg("undo").args(args).output().unwrap())
}

#[test]
fn undo_after_an_apply_over_the_default_limit_remembers_the_limit() {
    let (tree, text, diff) = big_repo();
    // The default limit refuses to read it, and says how to raise it.
    let refused = tree.apply(&diff, &[]);
    refused.code(2);
    assert!(refused.stderr.contains("--max-file-size"), "{refused:?}");

    tree.apply(&diff, &["--max-file-size", "1G"]).code(0);
    let changed = std::fs::read_to_string(tree.path("data/big.txt")).unwrap();
    assert!(changed.starts_with("changed by salve\n"));

    // Plain undo: the limit the apply ran with comes from the record.
    let undone = undo(&tree, &[]);
    undone.code(0);
    assert!(
        undone
            .stdout
            .contains("reverted its changes to data/big.txt"),
        "{undone:?}"
    );
    assert!(
        tree.read("data/big.txt") == text,
        "undo did not bring the file back"
    );
    assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
    // A second undo redoes.
    undo(&tree, &[]).code(0);
    let redone = std::fs::read_to_string(tree.path("data/big.txt")).unwrap();
    assert!(redone.starts_with("changed by salve\n"));
}

#[test]
fn undo_takes_the_limit_when_the_apply_was_not_recorded() {
    let (tree, text, diff) = big_repo();
    tree.apply(&diff, &["--max-file-size", "1G", "--no-record"])
        .code(0);
    // Nothing remembers the limit; the flag gives it. The checkpoint is restored then, and
    // the file as it was before the apply must come back whole.
    undo(&tree, &["--max-file-size", "1G"]).code(0);
    assert!(
        tree.read("data/big.txt") == text,
        "undo did not bring the file back"
    );
    // And undo of that undo (a redo) brings the change back.
    undo(&tree, &["--max-file-size", "1G"]).code(0);
    let redone = std::fs::read_to_string(tree.path("data/big.txt")).unwrap();
    assert!(redone.starts_with("changed by salve\n"));
}
