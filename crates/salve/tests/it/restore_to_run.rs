//! `salve restore --to-run RUN` through the real binary: the work tree goes back to just before
//! the run, that run and the later ones are marked rewound (kept, never deleted), and the
//! restore is undone by `salve undo` or by restoring the checkpoint it took, which brings the
//! runs back.

use crate::support::{Run, Tree};

fn run(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

pub const EDIT_A: &str =
    "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n```\n";
pub const ADD_B: &str = "```diff\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+bee\n```\n";
pub const EDIT_A_AGAIN: &str =
    "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n TWO\n-three\n+THREE\n```\n";

/// A repository with three applied runs; their ids, oldest first.
pub fn three_runs() -> (Tree, Vec<String>) {
    let tree = Tree::git();
    tree.write("a.txt", "one\ntwo\nthree\n").commit("init");
    let ids = [EDIT_A, ADD_B, EDIT_A_AGAIN]
        .iter()
        .map(|reply| {
            tree.apply(reply, &[]).code(0);
            last_run(&tree)
        })
        .collect();
    (tree, ids)
}

/// The id of the newest recorded run.
pub fn last_run(tree: &Tree) -> String {
    let log = run(tree, &["log", "--limit", "1", "--json"]);
    log.code(0);
    log.json()[0]["id"].as_str().unwrap().to_owned()
}

fn rewound(tree: &Tree) -> Vec<String> {
    let log = run(tree, &["log", "--status", "rewound", "--json"]);
    log.code(0);
    let mut ids: Vec<String> = log
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn restore_to_run_goes_back_and_marks_the_later_runs_rewound() {
    let (tree, ids) = three_runs();
    let out = run(&tree, &["restore", "--to-run", &ids[1][..16]]);
    out.code(0);
    assert!(
        out.stdout.contains("2 run(s) marked rewound"),
        "{}",
        out.stdout
    );
    assert_eq!(tree.read("a.txt"), "one\nTWO\nthree\n");
    assert!(!tree.exists("b.txt"));
    assert_eq!(rewound(&tree), [ids[1].clone(), ids[2].clone()]);
    // Never deleted: all three runs are still listed, with their own status.
    let log = run(&tree, &["log", "--json"]);
    let all = log.json();
    assert_eq!(all.as_array().unwrap().len(), 3);
    assert_eq!(all[0]["status"], "applied");
    assert!(all[0]["rewound_by"].is_string());
    assert!(all[2].get("rewound_by").is_none());

    // `salve undo` takes the restore back, and the runs with it.
    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("a.txt"), "one\nTWO\nTHREE\n");
    assert_eq!(tree.read("b.txt"), "bee\n");
    assert!(rewound(&tree).is_empty());
}

#[test]
fn restoring_the_checkpoint_a_rewind_took_brings_the_runs_back() {
    let (tree, ids) = three_runs();
    let out = run(&tree, &["restore", "--to-run", &ids[0], "--json"]);
    out.code(0);
    let json = out.json();
    assert_eq!(json["run"], ids[0].as_str());
    assert_eq!(json["rewound"].as_array().unwrap().len(), 3);
    assert_eq!(tree.read("a.txt"), "one\ntwo\nthree\n");
    let before = json["restore"]["before"].as_str().unwrap().to_owned();
    let back = run(&tree, &["restore", &before, "--json"]);
    back.code(0);
    assert_eq!(back.json()["unrewound"].as_array().unwrap().len(), 3);
    assert_eq!(tree.read("a.txt"), "one\nTWO\nTHREE\n");
    assert!(rewound(&tree).is_empty());
}

#[test]
fn restore_to_run_refusals() {
    let (tree, ids) = three_runs();
    let files = tree.snapshot();
    let unknown = run(&tree, &["restore", "--to-run", "abcdef0123"]);
    unknown.code(2);
    assert!(unknown.stderr.contains("abcdef0123"), "{}", unknown.stderr);
    let both = run(&tree, &["restore", "--to-run", &ids[0], "deadbeef"]);
    both.code(2);
    // A refused apply took no checkpoint: nothing to go back to.
    tree.apply(
        "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nope\n+no\n```\n",
        &[],
    )
    .code(1);
    let id = last_run(&tree);
    let none = run(&tree, &["restore", "--to-run", &id]);
    none.code(1);
    assert!(none.stderr.contains("no checkpoint"), "{}", none.stderr);
    assert_eq!(tree.snapshot(), files);
    assert!(rewound(&tree).is_empty());
}

#[test]
fn restore_to_run_refuses_a_run_whose_checkpoint_was_dropped() {
    let (tree, ids) = three_runs();
    let shown = run(&tree, &["show", &ids[1], "--json"]);
    shown.code(0);
    let checkpoint = shown.json()["run"]["checkpoint"]
        .as_str()
        .unwrap()
        .to_owned();
    run(&tree, &["checkpoint", "drop", &checkpoint]).code(0);
    // Git still holds the dropped checkpoint's commit until gc: it must not be restored anyway.
    let out = run(&tree, &["restore", "--to-run", &ids[1], "--json"]);
    out.code(1);
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(text.contains("checkpoint_dropped"), "{text}");
    assert!(tree.exists("b.txt"), "nothing restored");
    assert_eq!(tree.read("a.txt"), "one\nTWO\nTHREE\n");
    assert!(rewound(&tree).is_empty());
}
