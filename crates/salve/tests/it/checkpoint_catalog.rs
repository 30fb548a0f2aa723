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

/// Catalog commits `git cat-file` finds anywhere in the repository.
fn catalog_commits(tree: &Tree) -> usize {
    let listed = tree.git_cmd(&[
        "cat-file",
        "--batch-all-objects",
        "--batch-check=%(objecttype) %(objectname)",
    ]);
    listed
        .lines()
        .filter_map(|l| l.strip_prefix("commit "))
        .filter(|id| {
            tree.git_cmd(&["cat-file", "commit", id])
                .contains("\n\nsalve checkpoints (")
        })
        .count()
}

/// Every apply replaces the catalog's commit and its tree (which names every checkpoint):
/// salve's merges of its packs leave the replaced ones out once they were replaced ten seconds
/// ago, so the packs do not grow with the square of the checkpoints. Thirty applies, a pause
/// past that grace, thirty more: the first thirty's catalogs go in the merges of the second
/// thirty, the last ones stay. The committer date is pinned a day apart per apply, which must
/// not count: the grace is the wall clock's. Every checkpoint still lists, restores and undoes,
/// and git finds nothing wrong.
#[test]
fn replaced_catalogs_are_left_out_of_salves_merged_packs() {
    let tree = Tree::git();
    tree.write("src/lib.rs", "pub fn a() {}\n").commit("init");
    let mut taken = Vec::new();
    for n in 0..60i64 {
        if n == 30 {
            std::thread::sleep(std::time::Duration::from_secs(11));
        }
        let file = tree.outside().join("reply.md");
        std::fs::write(&file, if n % 2 == 0 { A_TO_B } else { B_TO_A }).unwrap();
        let when = format!("@{} +0000", 1_600_000_000 + n * 86_400);
        let out = tree
            .salve()
            .env("GIT_COMMITTER_DATE", &when)
            .args(["apply", "--json"])
            .arg(&file)
            .output()
            .unwrap();
        let applied = Run::from(out);
        applied.code(0);
        taken.push(applied.json()["checkpoint"].as_str().unwrap().to_owned());
    }
    let packs = std::fs::read_dir(tree.path(".git/objects/pack"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "pack")
        })
        .count();
    assert!(packs <= 10, "{packs} packs");
    // The second thirty, the one the first of them replaced, and what the packs not merged
    // since hold of the first thirty: far fewer than 60.
    let kept = catalog_commits(&tree);
    eprintln!("{kept} catalog commits kept of 60");
    assert!(
        (31..=45).contains(&kept),
        "{kept} catalog commits kept of 60"
    );
    tree.git_cmd(&["fsck", "--strict"]);
    let listed = run(&tree, &["checkpoints", "--json"]);
    listed.code(0);
    assert_eq!(listed.json().as_array().unwrap().len(), 60);
    // The second apply's checkpoint (taken before it) holds b, merged long ago.
    run(&tree, &["restore", &taken[1]]).code(0);
    assert_eq!(tree.read("src/lib.rs"), "pub fn b() {}\n");
    run(&tree, &["undo", "--force"]).code(0);
    assert_eq!(tree.read("src/lib.rs"), "pub fn a() {}\n");
    tree.git_cmd(&["fsck", "--strict"]);
}
