//! `.git` under other names: spellings Linux takes as ordinary names but NTFS, HFS+ or a
//! case-insensitive file system may take for the repository's own directory. A reply that names
//! one is refused whole with `path_rejected`, in every format, and nothing is written, so a tree
//! checked out on Windows or macOS later cannot carry a planted `.git/config` or hook.

use serde_json::json;

use crate::mcp::Server;
use crate::support::Tree;

/// Spellings every reader takes as a path (diff headers, Codex envelopes, tool calls).
const SPELLINGS: &[&str] = &[
    // NTFS alternate data streams: `::$INDEX_ALLOCATION` is the directory itself.
    ".git::$INDEX_ALLOCATION/config",
    ".git:$DATA/config",
    ".git:stream/hooks/post-checkout",
    // NTFS drops trailing dots and spaces; `GIT~1` is the 8.3 short name.
    ".git./config",
    ".git . /config",
    "GIT~1/config",
    // A fullwidth full stop, and fullwidth letters (compatibility forms of `.git`).
    "\u{FF0E}git/config",
    "\u{FF0E}\u{FF27}\u{FF29}\u{FF34}/config",
    // HFS+ ignores these code points; macOS and Windows ignore case.
    ".g\u{200C}it/config",
    ".\u{FEFF}GIT/config",
    "sub/.Git/hooks/pre-commit",
];

/// The spellings a path line before a whole-file or SEARCH/REPLACE block can carry: those
/// readers take no `$` or spaces in a bare path line (the others are not read as paths at all).
const LINE_SPELLINGS: &[&str] = &[
    ".git:stream/config",
    ".git./config",
    "GIT~1/config",
    "\u{FF0E}git/config",
    ".g\u{200C}it/config",
    ".GIT/config",
];

fn repo() -> Tree {
    let tree = Tree::git();
    tree.write("app.py", "print('hi')\n").commit("init");
    tree
}

/// The reply is refused, every file it names is `path_rejected`, and the tree is unchanged.
#[track_caller]
fn assert_rejected(tree: &Tree, reply: &str, what: &str) {
    let before = tree.snapshot();
    let run = tree.apply(reply, &["--json"]);
    assert_eq!(run.code, 1, "{what}: {}\n{}", run.stdout, run.stderr);
    let json = run.json();
    assert_eq!(json["outcome"], "refused", "{what}: {json}");
    let files = json["files"].as_array().unwrap();
    assert!(!files.is_empty(), "{what}: no file reported: {json}");
    for file in files {
        assert_eq!(file["status"], "path_rejected", "{what}: {json}");
        assert!(
            file["message"].as_str().unwrap().contains(".git"),
            "{what}: {json}"
        );
    }
    assert_eq!(tree.snapshot(), before, "{what}: the tree changed");
}

#[test]
fn every_spelling_of_dot_git_is_refused_in_diffs_codex_and_tool_calls() {
    let tree = repo();
    for path in SPELLINGS {
        let diff =
            format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,2 @@\n+[core]\n+\tfsmonitor = evil\n");
        assert_rejected(&tree, &diff, &format!("diff {path:?}"));
        let codex = format!(
            "*** Begin Patch\n*** Add File: {path}\n+[core]\n+\tfsmonitor = evil\n*** End Patch\n"
        );
        assert_rejected(&tree, &codex, &format!("codex {path:?}"));
        let old_new = json!({"path": path, "old_string": "", "new_string": "[core]\n"});
        assert_rejected(
            &tree,
            &format!("```json\n{old_new}\n```\n"),
            &format!("old/new JSON {path:?}"),
        );
        let cline = format!(
            "<write_to_file>\n<path>{path}</path>\n<content>\n[core]\n</content>\n</write_to_file>\n"
        );
        assert_rejected(&tree, &cline, &format!("write_to_file {path:?}"));
    }
}

#[test]
fn every_spelling_of_dot_git_is_refused_after_a_path_line() {
    let tree = repo();
    for path in LINE_SPELLINGS {
        let whole = format!("{path}\n```\n[core]\n\tfsmonitor = evil\n```\n");
        assert_rejected(&tree, &whole, &format!("whole file {path:?}"));
        let search_replace = format!(
            "{path}\n```\n<<<<<<< SEARCH\n=======\n[core]\n\tfsmonitor = evil\n>>>>>>> REPLACE\n```\n"
        );
        assert_rejected(&tree, &search_replace, &format!("SEARCH/REPLACE {path:?}"));
    }
}

#[test]
fn a_dot_git_spelling_is_refused_even_beside_a_good_edit_and_with_partial() {
    let tree = repo();
    let before = tree.snapshot();
    let reply = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print('hi')\n+print('hello')\n\
                 --- /dev/null\n+++ b/.git::$INDEX_ALLOCATION/hooks/post-checkout\n@@ -0,0 +1 @@\n+evil\n";
    let run = tree.apply(reply, &["--json", "--partial"]);
    run.code(1);
    assert_eq!(run.json()["outcome"], "refused");
    assert_eq!(tree.snapshot(), before);
}

#[test]
fn mcp_write_file_refuses_every_spelling() {
    let tree = repo();
    let before = tree.snapshot();
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    for path in SPELLINGS {
        let (result, is_error) =
            server.call("write_file", json!({"path": path, "content": "[core]\n"}));
        assert!(is_error, "{path:?}: {result}");
        // Refused before any reply is built: the tool's error, with the guard's code.
        assert_eq!(
            result["error"]["code"], "path_rejected",
            "{path:?}: {result}"
        );
        assert!(
            result["error"]["message"]
                .as_str()
                .unwrap()
                .contains(".git"),
            "{result}"
        );
    }
    server.finish();
    assert_eq!(tree.snapshot(), before);
}
