//! The syntax check of `salve apply`: a file that parsed before and would not after the edit is
//! refused with status `syntax` (the error's line and the hunk that caused it), nothing is
//! written, and `--no-syntax-check` writes it anyway.

use crate::support::Tree;

const APP_PY: &str = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n\n\ndef main():\n    print(total([1, 2]))\n";

/// Adds a line one level too deep after `s = 0`: Python refuses it.
const BAD_INDENT: &str = "```diff\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,4 @@\n def total(items):\n     s = 0\n+        count = 0\n     for i in items:\n```\n";

const APP_JS: &str =
    "export function greet(name) {\n  return 'hello ' + name;\n}\n\nexport const x = 1;\n";

/// The new line quotes its string with curly quotes, as a chat renderer writes them.
const CURLY_JS: &str = "app.js\n```js\n<<<<<<< SEARCH\n  return 'hello ' + name;\n=======\n  return \u{201c}hello \u{201d} + name;\n>>>>>>> REPLACE\n```\n";

fn tree_with(files: &[(&str, &str)]) -> Tree {
    let tree = Tree::git();
    for (path, text) in files {
        tree.write(path, text);
    }
    tree.commit("init");
    tree
}

#[test]
fn a_python_edit_that_breaks_indentation_is_refused_as_syntax() {
    let tree = tree_with(&[("app.py", APP_PY)]);
    let before = tree.snapshot();
    let run = tree.apply(BAD_INDENT, &["--json"]);
    run.code(1);
    assert_eq!(tree.snapshot(), before, "nothing may be written");
    let json = run.json();
    assert_eq!(json["outcome"], "refused");
    let file = &json["files"][0];
    assert_eq!(file["status"], "syntax");
    let message = file["message"].as_str().unwrap();
    assert!(
        message.contains("Python syntax error at line 3, column 9: unexpected indent"),
        "{message}"
    );
    assert!(message.contains("Hunk 1 caused it"), "{message}");
    assert!(message.contains("3 |         count = 0"), "{message}");
    assert_eq!(file["hunks"][0]["status"], "syntax");

    // The human report names the status and the line too.
    let run = tree.apply(BAD_INDENT, &[]);
    run.code(1);
    assert!(run.stdout.contains("app.py: syntax"), "{}", run.stdout);
    assert!(run.stdout.contains("line 3"), "{}", run.stdout);
}

#[test]
fn a_js_edit_with_curly_quotes_is_refused_and_no_syntax_check_writes_it() {
    let tree = tree_with(&[("app.js", APP_JS)]);
    let before = tree.snapshot();
    let run = tree.apply(CURLY_JS, &["--json"]);
    run.code(1);
    assert_eq!(tree.snapshot(), before);
    let file = &run.json()["files"][0];
    assert_eq!(file["status"], "syntax");
    let message = file["message"].as_str().unwrap();
    assert!(
        message.contains("JavaScript syntax error at line 2, column 17"),
        "{message}"
    );

    let run = tree.apply(CURLY_JS, &["--no-syntax-check"]);
    run.code(0);
    assert!(tree.read("app.js").contains("\u{201c}hello \u{201d}"));
}

#[test]
fn the_hunk_that_broke_the_file_is_named_and_the_others_skipped() {
    let tree = tree_with(&[("app.py", APP_PY)]);
    // Hunk 1 is fine; hunk 2 drops the colon of `def main()`.
    let reply = "```diff\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def total(items):\n-    s = 0\n+    s = 10\n@@ -8,2 +8,2 @@\n-def main():\n+def main()\n     print(total([1, 2]))\n```\n";
    let json = tree.apply(reply, &["--json"]).json();
    let file = &json["files"][0];
    assert_eq!(file["status"], "syntax", "{json}");
    assert_eq!(file["hunks"][0]["status"], "skipped", "{json}");
    assert_eq!(file["hunks"][1]["status"], "syntax");
    let message = file["message"].as_str().unwrap();
    assert!(message.contains("Hunk 2 caused it"), "{message}");
    assert!(message.contains("line 8"), "{message}");
    assert_eq!(tree.read("app.py"), APP_PY);
}

#[test]
fn a_file_that_was_already_broken_is_not_judged() {
    // A stray `)` at the end already breaks the file: the edit is not the check's business.
    let broken = format!("{APP_PY})\n");
    let tree = tree_with(&[("app.py", &broken)]);
    tree.apply(BAD_INDENT, &[]).code(0);
    assert!(tree.read("app.py").contains("        count = 0\n"));
}

#[test]
fn partial_writes_the_files_that_still_parse() {
    let tree = tree_with(&[("app.py", APP_PY), ("app.js", APP_JS)]);
    let good_js = "```diff\n--- a/app.js\n+++ b/app.js\n@@ -5 +5 @@\n-export const x = 1;\n+export const x = 2;\n```\n";
    let reply = format!("{BAD_INDENT}\n{good_js}");
    // All or nothing by default; the command line, not the report, names the flags that would
    // write more.
    let refused = tree.apply(&reply, &[]);
    refused.code(1);
    assert_eq!(tree.read("app.js"), APP_JS);
    for note in [
        "note: --partial writes the files that placed",
        "note: --no-syntax-check writes a file that would not parse anyway",
    ] {
        assert!(refused.stderr.contains(note), "{}", refused.stderr);
    }
    let json = tree.apply(&reply, &["--json"]).stdout;
    assert!(
        !json.contains("--partial") && !json.contains("--no-syntax-check"),
        "{json}"
    );
    // --partial writes the file that parses, never the one that does not.
    let run = tree.apply(&reply, &["--partial", "--json"]);
    run.code(1);
    assert_eq!(run.json()["outcome"], "partial");
    assert!(tree.read("app.js").contains("x = 2"));
    assert_eq!(tree.read("app.py"), APP_PY);
}

#[test]
fn files_of_unknown_types_are_not_checked() {
    let tree = tree_with(&[("notes.txt", "a (\nb\n")]);
    let reply =
        "```diff\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n a (\n-b\n+b ))) {{\n```\n";
    tree.apply(reply, &[]).code(0);
    assert_eq!(tree.read("notes.txt"), "a (\nb ))) {{\n");
}

#[test]
fn the_record_keeps_the_syntax_refusal_and_its_reason() {
    let tree = tree_with(&[("app.py", APP_PY)]);
    tree.apply(BAD_INDENT, &[]).code(1);
    let log = tree.salve().args(["--json", "log"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    let last = &runs[0];
    assert_eq!(last["status"], "refused", "{runs}");
    let id = last["id"].as_str().unwrap();
    let show = tree.salve().args(["--json", "show", id]).output().unwrap();
    let rec: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let reason = rec["patch_sets"][0]["reason"].as_str().unwrap_or_default();
    assert_eq!(
        rec["decisions"][0]["chosen"],
        "app.py hunk 1: refused (syntax)"
    );
    assert!(
        reason.starts_with(
            "app.py: syntax (the file would not parse after the edit: Python syntax error at line 3"
        ),
        "{rec}"
    );
}
