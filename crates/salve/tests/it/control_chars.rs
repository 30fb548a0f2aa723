//! Control characters in a reply (issue 26 point 2): a NUL byte, or another C0 control but
//! tab, CR and LF, that the file did not have is refused with status `binary` whatever format
//! carried it, and nothing is written; a control character the file already holds may stay.

use crate::support::Tree;

const README: &str = "# Project\n\nSome text.\n";

/// The same edit (line 3 gets a NUL byte) in every format that can carry one.
fn replies_with_nul() -> Vec<(&'static str, String)> {
    vec![
        (
            "search/replace",
            "README.md\n```\n<<<<<<< SEARCH\nSome text.\n=======\nSome\0text.\n>>>>>>> REPLACE\n```\n"
                .to_owned(),
        ),
        (
            "unified diff",
            "--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # Project\n \n-Some text.\n+Some\0text.\n"
                .to_owned(),
        ),
        (
            "old/new json",
            r#"{"path": "README.md", "old_string": "Some text.", "new_string": "Some\u0000text."}"#
                .to_owned(),
        ),
        (
            "whole file",
            "README.md\n```markdown\n# Project\n\nSome\0text.\n```\n".to_owned(),
        ),
    ]
}

#[test]
fn a_nul_byte_in_any_format_is_refused_as_binary_and_nothing_is_written() {
    for (format, reply) in replies_with_nul() {
        let tree = Tree::git();
        tree.write("README.md", README).commit("start");
        let before = tree.snapshot();
        let run = tree.apply(&reply, &["--json"]);
        run.code(1);
        let json = run.json();
        assert_eq!(json["outcome"], "refused", "{format}: {json}");
        let file = &json["files"][0];
        assert_eq!(file["status"], "binary", "{format}: {json}");
        let message = file["message"].as_str().unwrap_or_default();
        assert!(message.contains("NUL byte"), "{format}: {message}");
        assert_eq!(tree.snapshot(), before, "{format}: something was written");
        // The human report says so too.
        let text = tree.apply(&reply, &[]);
        text.code(1);
        assert!(text.stdout.contains("binary"), "{format}: {}", text.stdout);
    }
}

#[test]
fn other_controls_are_refused_but_tabs_and_controls_the_file_had_are_kept() {
    let tree = Tree::git();
    tree.write("notes.txt", "alpha\nbeta\n")
        .write("page.c", "int a;\n\x0c\nint b;\n")
        .commit("start");
    let escape =
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+\x1b[31mbeta\n";
    let run = tree.apply(escape, &["--json"]);
    run.code(1);
    assert_eq!(run.json()["files"][0]["status"], "binary", "{}", run.stdout);
    assert_eq!(tree.read("notes.txt"), "alpha\nbeta\n");

    let tab = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+\tbeta\n";
    tree.apply(tab, &[]).code(0);
    assert_eq!(tree.read("notes.txt"), "alpha\n\tbeta\n");

    // The C file already holds a form feed: one more is the file's own style.
    let feed = "--- a/page.c\n+++ b/page.c\n@@ -1,3 +1,4 @@\n int a;\n \x0c\n int b;\n+\x0c\n";
    tree.apply(feed, &[]).code(0);
    assert_eq!(tree.read("page.c"), "int a;\n\x0c\nint b;\n\x0c\n");
}
