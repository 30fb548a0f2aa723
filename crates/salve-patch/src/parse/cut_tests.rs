//! Signs of a cut reply, one per test: each damaged reply is refused as `Truncated` (or, for a
//! marker among a hunk's lines, `EditSyntax`), and the complete reply beside it is not.

use crate::edit::{FileChange, IssueKind};
use crate::parse::extract;

const DIFF: &str = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
const SR: &str = "x.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n";

fn kinds(reply: &str) -> Vec<IssueKind> {
    extract(reply).issues.iter().map(|i| i.kind).collect()
}

fn truncated(reply: &str) {
    assert!(
        kinds(reply).contains(&IssueKind::Truncated),
        "not truncated: {reply:?}: {:?}",
        extract(reply).issues
    );
}

fn clean(reply: &str) {
    assert!(
        kinds(reply).is_empty(),
        "{reply:?}: {:?}",
        extract(reply).issues
    );
}

#[test]
fn complete_replies_have_no_sign_with_or_without_a_final_newline() {
    clean(DIFF);
    clean(DIFF.trim_end());
    clean(SR);
    clean(SR.trim_end());
    clean(&format!("{DIFF}\nsrc/a.rs\nsrc/b.rs\n"));
    clean(&format!("{SR}\nChanged:\n- x.py"));
}

#[test]
fn a_reply_stopping_on_a_piece_of_syntax_is_truncated() {
    for end in [
        "@",
        "@@",
        "@@ -5,3 +5",
        "<<<",
        ">>>>>>> REPL",
        "``",
        "~~",
        "*** End Pa",
    ] {
        truncated(&format!("{DIFF}{end}"));
    }
    truncated(&format!("{SR}\n``"));
}

#[test]
fn a_header_with_nothing_after_it_is_truncated() {
    truncated(&format!("{DIFF}@@ -9,2 +9,2 @@\n"));
    truncated(&format!("{DIFF}@@ -9,2 +9,2 @@\n ctx\n"));
    truncated(&format!("{DIFF}--- a/y\n+++ b/y\n"));
    truncated("diff --git a/y b/y\nindex 1..2 100644\n--- a/y\n+++ b/y\n");
}

#[test]
fn a_bare_prefix_or_half_a_no_newline_line_at_the_end_is_truncated() {
    // Counts met by the cut line itself: still no complete reply ends so.
    truncated("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+");
    truncated("--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-b\n\\ No new");
}

#[test]
fn a_path_line_at_the_end_is_truncated() {
    truncated(&format!("{SR}\nThen:\n\nsrc/other.py"));
    truncated(&format!("{SR}\nThen:\n\nsrc/other.py\n"));
}

#[test]
fn an_unclosed_fence_at_the_end_is_truncated() {
    // Without a newline, whatever the fence holds.
    truncated(&format!("{SR}\n```json\n{{\"file_path\": \"sr"));
    // A JSON value cut at a line's end, in a fence that never closes.
    truncated(&format!("{SR}\n```json\n{{\n"));
    // With one, when the fence holds an edit that runs to the end.
    truncated("x.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
    truncated("```diff\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    // Text glued to the hunk's last line, running to the end: a line that lost its `+`.
    truncated("```diff\n--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n-b\n+B\nC\n");
    // Prose after a blank line, in a fence left open: a forgotten close.
    clean("```diff\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\nDone.\n");
}

#[test]
fn a_quoted_line_at_the_end_without_a_newline_is_marked_for_the_applier() {
    let x = extract(DIFF.trim_end());
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert!(hunks[0].cut_line);
    let x = extract(DIFF);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert!(!hunks[0].cut_line);
}

#[test]
fn a_codex_patch_cut_after_its_lines_is_truncated() {
    let patch = "*** Begin Patch\n*** Update File: x\n@@\n a\n-b\n+B\nunprefixed";
    truncated(patch);
    // Glued to the patch's lines, with a newline too.
    truncated(&format!("{patch}\n"));
    // After a blank line, it is prose after a forgotten end line.
    let prose = "*** Begin Patch\n*** Update File: x\n@@\n a\n-b\n+B\n\nDone.\n";
    assert!(!kinds(prose).contains(&IssueKind::Truncated));
}

#[test]
fn an_end_line_among_a_hunks_lines_is_edit_syntax() {
    let diff = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n*** End Patch\n+B\n c\n";
    assert!(kinds(diff).contains(&IssueKind::EditSyntax));
    // Right under the hunk's header too.
    let diff = "--- a/x\n+++ b/x\n@@\n*** End Patch\n a\n-b\n+B\n";
    assert!(kinds(diff).contains(&IssueKind::EditSyntax));
    let codex = "*** Begin Patch\n*** Update File: x\n@@\n a\n-b\n*** End Patch\n+B\n c\n";
    assert!(kinds(codex).contains(&IssueKind::EditSyntax));
    let git = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\ndiff --git a/y b/y\n\\ No newline at end of file\n+B\n";
    assert!(kinds(git).contains(&IssueKind::Malformed));
    let git = "--- a/x\n+++ b/x\n@@\n a\ndiff --git a/y b/y\n \n-b\n+B\n";
    assert!(kinds(git).contains(&IssueKind::Malformed));
    let codex = "*** Begin Patch\n*** Update File: x\n@@\n a\n*** End Patch\n \n-b\n+B\n";
    assert!(kinds(codex).contains(&IssueKind::EditSyntax));
}

#[test]
fn a_marker_line_inside_a_json_write_is_content() {
    let reply = "{\"name\": \"Write\", \"input\": {\"file_path\": \"a.md\", \"content\": \"Title\\n>>>>>>> REPLACE\\nend\\n\"}}";
    clean(reply);
    let x = extract(reply);
    let FileChange::Replace { content, .. } = &x.edits[0].change else {
        panic!()
    };
    assert!(content.contains(">>>>>>> REPLACE"));
}
