//! Checkpoints through the real binary stay out of the user's history views (issue 13 §5) and
//! survive `git gc --prune=now`.

use crate::support::{Run, Tree};

const A_TO_B: &str =
    "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn a() {}\n+pub fn b() {}\n";
const B_TO_A: &str =
    "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn b() {}\n+pub fn a() {}\n";

fn run(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

fn log_lines(tree: &Tree) -> usize {
    tree.git_cmd(&["log", "--all", "--oneline"]).lines().count()
}

#[test]
fn a_hundred_applies_add_at_most_one_line_to_git_log_all() {
    let tree = Tree::git();
    tree.write("src/lib.rs", "pub fn a() {}\n").commit("init");
    tree.git_cmd(&["branch", "feature"]);
    let (log_before, branches_before) = (log_lines(&tree), tree.git_cmd(&["branch", "-a"]));

    let mut first = None;
    for n in 0..100 {
        let applied = tree.apply(if n % 2 == 0 { A_TO_B } else { B_TO_A }, &["--json"]);
        applied.code(0);
        if first.is_none() {
            first = applied.json()["checkpoint"].as_str().map(str::to_owned);
        }
    }
    assert_eq!(tree.read("src/lib.rs"), "pub fn a() {}\n");
    assert!(log_lines(&tree) <= log_before + 1, "{}", log_lines(&tree));
    assert_eq!(tree.git_cmd(&["branch", "-a"]), branches_before);
    let listed = run(&tree, &["checkpoints", "--json"]);
    listed.code(0);
    // Applies in the same second that leave the same files share one checkpoint.
    let ids: Vec<String> = listed
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        ids.len() >= 2 && ids.contains(first.as_ref().unwrap()),
        "{ids:?}"
    );

    // After git collects everything it can, the oldest checkpoint still restores and the last
    // apply still undoes.
    tree.git_cmd(&["gc", "-q", "--prune=now"]);
    let first = first.unwrap();
    run(&tree, &["restore", &first]).code(0);
    assert_eq!(tree.read("src/lib.rs"), "pub fn a() {}\n");
    tree.apply(A_TO_B, &[]).code(0);
    tree.git_cmd(&["gc", "-q", "--prune=now"]);
    run(&tree, &["undo", "--force"]).code(0);
    assert_eq!(tree.read("src/lib.rs"), "pub fn a() {}\n");
}
