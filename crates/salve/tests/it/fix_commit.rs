//! `salve fix` commits its repair's lines alone (issue 24 §3): over HEAD's version of the file,
//! while the user's staged and unstaged lines in the same file stay staged and unstaged. When
//! the two cannot be told apart, nothing is committed and the repair stays in the tree.

use crate::fix::{fix, python_project, PY_FIX};

const CHECK: [&str; 5] = ["--", "python3", "-m", "unittest", "-q"];

#[test]
fn the_commit_holds_the_repair_and_the_users_lines_in_the_same_file_stay_put() {
    let tree = python_project(&[PY_FIX]);
    // The user's own lines in calc.py: a new function staged, a comment at the top unstaged.
    let staged = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
    tree.write("calc.py", staged);
    tree.git_cmd(&["add", "calc.py"]);
    tree.write("calc.py", format!("# a calculator\n{staged}"));
    let head_before = tree.git_cmd(&["rev-parse", "HEAD"]);

    let out = fix(&tree, &CHECK);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "repaired", "{}", out.stdout);
    assert!(json["commit"].is_string(), "{}", out.stdout);
    assert!(json.get("uncommitted").is_none(), "{}", out.stdout);
    // The commit: HEAD's calc.py with the repaired line, and nothing of the user's.
    assert_eq!(tree.git_cmd(&["rev-parse", "HEAD^"]), head_before);
    assert_eq!(
        tree.git_cmd(&["show", "HEAD:calc.py"]),
        "def add(a, b):\n    return a + b\n"
    );
    // The record's diff is the commit's change.
    let committed = tree.git_cmd(&["diff", "HEAD^", "HEAD"]);
    let changed = |d: &str| -> Vec<String> {
        d.lines()
            .filter(|l| {
                (l.starts_with('+') || l.starts_with('-'))
                    && !l.starts_with("+++")
                    && !l.starts_with("---")
            })
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        changed(json["diff"].as_str().unwrap()),
        changed(&committed),
        "{committed}"
    );
    // The user's staged function is still staged (and only it), the comment still unstaged.
    assert_eq!(
        tree.git_cmd(&["diff", "--cached"]),
        "diff --git a/calc.py b/calc.py\nindex 3b4ad8d..0c35a1e 100644\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,6 @@\n def add(a, b):\n     return a + b\n+\n+\n+def mul(a, b):\n+    return a * b\n"
            .replace("index 3b4ad8d..0c35a1e", &index_line(&tree))
    );
    assert_eq!(
        changed(&tree.git_cmd(&["diff"])),
        vec!["+# a calculator".to_owned()]
    );
    assert_eq!(
        tree.read("calc.py"),
        "# a calculator\ndef add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
    );
}

/// The `index A..B` line of the staged diff of calc.py, which names blob ids.
fn index_line(tree: &crate::support::Tree) -> String {
    tree.git_cmd(&["diff", "--cached"])
        .lines()
        .find(|l| l.starts_with("index "))
        .map(|l| l.trim_end_matches(" 100644").to_owned())
        .unwrap()
}

#[test]
fn a_repair_of_a_line_the_user_changed_too_is_left_uncommitted_and_said_so() {
    let repair = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b  # TODO: check the types\n+    return a + b  # TODO: check the types\n```\nConfidence: 0.95\n";
    let tree = python_project(&[repair]);
    // The user changed the very line the repair changes (a comment at its end, unstaged).
    tree.write(
        "calc.py",
        "def add(a, b):\n    return a - b  # TODO: check the types\n",
    );
    let head_before = tree.git_cmd(&["rev-parse", "HEAD"]);

    let out = fix(&tree, &CHECK);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "repaired", "{}", out.stdout);
    assert!(json.get("commit").is_none(), "{}", out.stdout);
    assert_eq!(json["uncommitted"], serde_json::json!(["calc.py"]));
    assert!(
        json["message"].as_str().unwrap().contains("not committed"),
        "{}",
        out.stdout
    );
    // Nothing committed, nothing staged; the repair and the user's line are in the tree.
    assert_eq!(tree.git_cmd(&["rev-parse", "HEAD"]), head_before);
    assert_eq!(tree.git_cmd(&["diff", "--cached"]), "");
    assert_eq!(
        tree.read("calc.py"),
        "def add(a, b):\n    return a + b  # TODO: check the types\n"
    );
}
