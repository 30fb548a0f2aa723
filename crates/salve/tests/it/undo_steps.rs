//! `salve undo --steps N`: back through several of salve's own changes, newest first, each step
//! merged like a single undo (later work stays), undos not counted as steps, a conflict naming
//! its files, and every step itself undoable.

use serde_json::Value;

use crate::support::{Run, Tree};

fn run(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

/// A reply changing line 2 of a three-line file from `before` to `after`.
fn change(path: &str, first: &str, before: &str, after: &str, last: &str) -> String {
    format!(
        "```diff\n--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n {first}\n-{before}\n+{after}\n {last}\n```\n"
    )
}

fn kinds(steps: &Value) -> Vec<String> {
    steps["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["undone"]["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn steps_go_back_through_several_changes_and_keep_later_work() {
    let tree = Tree::git();
    tree.write("a.py", "a1 = 1\na2 = 2\na3 = 3\n")
        .write("b.py", "b1 = 1\nb2 = 2\nb3 = 3\n")
        .commit("start");
    let a = change("a.py", "a1 = 1", "a2 = 2", "a2 = 20", "a3 = 3");
    let b = change("b.py", "b1 = 1", "b2 = 2", "b2 = 20", "b3 = 3");
    tree.apply(&a, &[]).code(0);
    tree.apply(&b, &[]).code(0);
    tree.apply(
        "```diff\n--- a/a.py\n+++ b/a.py\n@@ -2,2 +2,2 @@\n a2 = 20\n-a3 = 3\n+a3 = 30\n```\n",
        &[],
    )
    .code(0);
    tree.write("notes.txt", "mine\n");

    let two = run(&tree, &["--json", "undo", "--steps", "2"]);
    two.code(0);
    let json = two.json();
    assert_eq!(json["asked"], 2);
    assert_eq!(kinds(&json), ["apply", "apply"]);
    assert_eq!(
        json["steps"][0]["reverted"]["written"],
        serde_json::json!(["a.py"])
    );
    assert_eq!(
        json["steps"][1]["reverted"]["written"],
        serde_json::json!(["b.py"])
    );
    assert!(json.get("stopped").is_none(), "{json}");
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 20\na3 = 3\n");
    assert_eq!(tree.read("b.py"), "b1 = 1\nb2 = 2\nb3 = 3\n");
    assert_eq!(tree.read("notes.txt"), "mine\n", "later work stays");

    // Undos are not steps: one more step takes back the first apply, not an undo.
    let one = run(&tree, &["undo", "--steps", "1"]);
    one.code(0);
    assert!(one.stdout.contains("undid 1 of 1 change"), "{}", one.stdout);
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 2\na3 = 3\n");

    // Nothing left in place: refused, nothing changed.
    let none = run(&tree, &["--json", "undo", "--steps", "1"]);
    none.code(1);
    assert_eq!(none.json()["error"]["kind"], "nothing_to_undo");

    // A plain undo takes back the last step (a redo), and that change counts again.
    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 20\na3 = 3\n");
    let too_many = run(&tree, &["--json", "undo", "--steps", "2"]);
    too_many.code(1);
    let error = &too_many.json()["error"];
    assert_eq!(error["kind"], "too_few_changes", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("only 1 salve change"),
        "{error}"
    );
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 20\na3 = 3\n");
    assert_eq!(tree.read("notes.txt"), "mine\n");
}

#[test]
fn a_step_that_conflicts_stops_the_walk_and_names_its_files() {
    let tree = Tree::git();
    tree.write("a.py", "a1 = 1\na2 = 2\na3 = 3\n")
        .write("b.py", "b1 = 1\nb2 = 2\nb3 = 3\n")
        .commit("start");
    tree.apply(
        &change("a.py", "a1 = 1", "a2 = 2", "a2 = 20", "a3 = 3"),
        &[],
    )
    .code(0);
    tree.apply(
        &change("b.py", "b1 = 1", "b2 = 2", "b2 = 20", "b3 = 3"),
        &[],
    )
    .code(0);
    // The first apply's line changed by hand since.
    tree.write("a.py", "a1 = 1\na2 = 21\na3 = 3\n");

    let out = run(&tree, &["--json", "undo", "--steps", "2"]);
    out.code(1);
    let json = out.json();
    assert_eq!(kinds(&json), ["apply"]);
    assert_eq!(json["stopped"]["code"], "undo_conflict", "{json}");
    assert_eq!(json["stopped"]["files"], serde_json::json!(["a.py"]));
    assert_eq!(
        tree.read("b.py"),
        "b1 = 1\nb2 = 2\nb3 = 3\n",
        "step 1 stands"
    );
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 21\na3 = 3\n", "untouched");

    // The step taken can itself be undone (a redo), and the walk then says the same in text.
    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("b.py"), "b1 = 1\nb2 = 20\nb3 = 3\n");
    let text = run(&tree, &["undo", "--steps", "2"]);
    text.code(1);
    assert!(
        text.stdout.contains("step 1: undid apply")
            && text.stdout.contains("step 2: not taken")
            && text.stdout.contains("a.py"),
        "{}",
        text.stdout
    );
    assert_eq!(tree.read("b.py"), "b1 = 1\nb2 = 2\nb3 = 3\n");
}

/// A redo (an undo of an undo) applies the change again merged, as undo reverted it: work done
/// between the two, in another file, stays. Before, the redo restored the whole tree.
#[test]
fn a_redo_applies_the_change_again_and_keeps_later_work() {
    let tree = Tree::git();
    tree.write("a.py", "a1 = 1\na2 = 2\na3 = 3\n")
        .write("README.md", "# readme\n")
        .commit("start");
    tree.apply(
        &change("a.py", "a1 = 1", "a2 = 2", "a2 = 20", "a3 = 3"),
        &[],
    )
    .code(0);
    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 2\na3 = 3\n");
    // Work by hand after the undo.
    tree.write("README.md", "# readme\nmore, by hand\n");
    tree.write("notes.txt", "new\n");
    let redo = run(&tree, &["--json", "undo"]);
    redo.code(0);
    let json = redo.json();
    assert_eq!(json["undone"]["kind"], "undo", "{json}");
    assert_eq!(json["reverted"]["redo"], true, "{json}");
    assert_eq!(json["reverted"]["written"], serde_json::json!(["a.py"]));
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 20\na3 = 3\n");
    assert_eq!(tree.read("README.md"), "# readme\nmore, by hand\n");
    assert_eq!(tree.read("notes.txt"), "new\n");
    // And the redo is undone the same way.
    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("a.py"), "a1 = 1\na2 = 2\na3 = 3\n");
    assert_eq!(tree.read("README.md"), "# readme\nmore, by hand\n");
}
