//! Work done while the fix loop runs is never wiped: a repair that did not help is taken back
//! alone, merged like `salve undo`, and so are the loop's own changes at its end.

use crate::fix::{fix, python_project};

/// Adds a comment: applies, does not help.
const NOOP: &str = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n+    # adds\n     return a - b\n```\nConfidence: 0.8\n";

#[test]
fn a_hand_edit_and_a_new_file_made_while_the_check_reruns_survive() {
    let tree = python_project(&[NOOP]);
    tree.write("b.py", "b = 1\n").commit("another file");
    // The check: the tests, and, when it runs on the repaired tree, the user editing b.py and
    // creating notes.txt meanwhile.
    let check = tree.outside().join("check.sh");
    std::fs::write(
        &check,
        "python3 -m unittest -q; rc=$?\n\
         if grep -q '# adds' calc.py && [ ! -f notes.txt ]; then echo 'b2 = 2' >> b.py; echo 'my notes' > notes.txt; fi\n\
         exit $rc\n",
    )
    .unwrap();
    let out = fix(&tree, &["--", "sh", check.to_str().unwrap()]);
    out.code(1);
    let json = out.json();
    assert_eq!(
        json["attempts"][0]["verdict"], "not_better",
        "{}",
        out.stdout
    );
    // The repair is gone; the user's work stays.
    assert_eq!(tree.read("calc.py"), "def add(a, b):\n    return a - b\n");
    assert_eq!(tree.read("b.py"), "b = 1\nb2 = 2\n");
    assert_eq!(tree.read("notes.txt"), "my notes\n");
}

#[test]
fn a_repair_that_cannot_be_taken_back_alone_stops_the_loop_and_keeps_both() {
    let tree = python_project(&[NOOP]);
    // While the check runs on the repaired tree, the user edits the very line the repair added.
    let check = tree.outside().join("check.sh");
    std::fs::write(
        &check,
        "python3 -m unittest -q; rc=$?\n\
         if grep -q '# adds' calc.py; then sed -i 's/# adds/# adds two numbers, by hand/' calc.py; fi\n\
         exit $rc\n",
    )
    .unwrap();
    let out = fix(&tree, &["--", "sh", check.to_str().unwrap()]);
    out.code(1);
    let json = out.json();
    assert_eq!(json["status"], "entangled", "{}", out.stdout);
    assert!(
        json["message"].as_str().unwrap().contains("calc.py"),
        "{json}"
    );
    assert_eq!(
        tree.read("calc.py"),
        "def add(a, b):\n    # adds two numbers, by hand\n    return a - b\n",
        "both kept"
    );
}
