//! Tests of [`looks_like_edit`]: each format says yes, prose and unattached code say no, and
//! every answer agrees with a full [`extract`].

use super::looks_like_edit;
use crate::parse::extract;

/// `looks_like_edit` and `extract` agree on `reply`, and the answer is `want`.
fn check(reply: &str, want: bool) {
    let found = !extract(reply).edits.is_empty();
    assert_eq!(found, want, "extract on {reply:?}");
    assert_eq!(looks_like_edit(reply), want, "looks_like_edit on {reply:?}");
}

#[test]
fn prose_is_not_an_edit() {
    check("", false);
    check("I looked at the code and it is fine as it is.\n", false);
    check(
        "NO_CHANGES_NEEDED\n\nThe function already handles `None`; see src/lib.rs.\n",
        false,
    );
    check(
        "- item one\n- item two\n\n---\n\nA rule, not a diff.\n",
        false,
    );
}

#[test]
fn a_fence_without_a_path_is_not_an_edit() {
    check("Try this:\n\n```rust\nfn main() {}\n```\n", false);
    check("```\nplain text\n```\n", false);
    // A backticked path in a prose line is a weak path: not enough for whole-file content.
    check(
        "Update `src/lib.rs` like this:\n\n```rust\nfn main() {}\n```\n",
        false,
    );
    // A path line before an empty fence.
    check("src/lib.rs\n```rust\n```\n", false);
    // A JSON value without old/new keys.
    check(
        "```json\n{\"name\": \"salve\", \"version\": 1}\n```\n",
        false,
    );
}

#[test]
fn git_and_unified_diffs() {
    check(
        "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n",
        true,
    );
    check(
        "Fix:\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n x\n-one\n+two\n```\n",
        true,
    );
}

#[test]
fn bare_hunks_need_a_path() {
    // Without a path the hunk is refused, not an edit; with the fence's path it is one.
    check("```diff\n@@ -1 +1 @@\n-one\n+two\n```\n", false);
    check("```diff a.txt\n@@ -1 +1 @@\n-one\n+two\n```\n", true);
    check("a.txt\n```diff\n-one\n+two\n```\n", true);
}

#[test]
fn codex_envelopes() {
    check(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n",
        true,
    );
    check(
        "*** Begin Patch\n*** Add File: b.txt\n+hi\n*** End Patch\n",
        true,
    );
}

#[test]
fn search_replace_blocks() {
    check(
        "src/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n",
        true,
    );
    check(
        "<path>src/a.py</path>\n------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE\n",
        true,
    );
}

#[test]
fn old_new_json() {
    check(
        "{\"path\": \"a.txt\", \"old_string\": \"one\\n\", \"new_string\": \"two\\n\"}\n",
        true,
    );
    check(
        "```json\n[{\"filePath\": \"a.txt\", \"oldString\": \"one\\n\", \"newString\": \"two\\n\"}]\n```\n",
        true,
    );
    check(
        "{\"file_path\": \"a.txt\", \"edits\": [{\"old\": \"one\\n\", \"new\": \"two\\n\"}]}\n",
        true,
    );
}

#[test]
fn whole_files() {
    check("src/lib.rs\n```rust\npub fn f() {}\n```\n", true);
    check("### `src/lib.rs`\n\n```rust\npub fn f() {}\n```\n", true);
    check("```rust src/lib.rs\npub fn f() {}\n```\n", true);
    check("```python title=\"tools/run.py\"\nprint(1)\n```\n", true);
    // A weak path (a bare name) serves a script.
    check("build\n```sh\n#!/bin/sh\nmake\n```\n", true);
    check("build\n```sh\nmake\n```\n", false);
}

#[test]
fn markers_and_nesting() {
    check(
        "<<<AI_DIFF_START>>>\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n<<<AI_DIFF_END>>>\n",
        true,
    );
    check(
        "````markdown\nsrc/x.rs\n```rust\nfn x() {}\n```\n````\n",
        true,
    );
}

#[test]
fn errs_only_towards_edit() {
    // A SEARCH block with no path anywhere is refused by extract, but it looks like an edit.
    let reply = "<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
    assert!(extract(reply).edits.is_empty());
    assert!(looks_like_edit(reply));
}
