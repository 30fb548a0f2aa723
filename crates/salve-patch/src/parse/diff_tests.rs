//! Tests of the git and unified diff reader.

use super::*;
use crate::edit::{Anchor, FileChange, Format, IssueKind, LineKind};
use crate::parse::extract;
use LineKind::{Add, Context, Remove};

fn lines(h: &Hunk) -> Vec<(LineKind, &str)> {
    h.lines.iter().map(|l| (l.kind, l.text.as_str())).collect()
}

fn hunks(c: &FileChange) -> &[Hunk] {
    match c {
        FileChange::Modify { hunks } | FileChange::Rename { hunks, .. } => hunks,
        other => panic!("not a modify: {other:?}"),
    }
}

#[test]
fn hunk_headers() {
    let h = parse_hunk_header("@@ -12,7 +12,8 @@ fn main() {").unwrap();
    assert_eq!(h.old_start, Some(12));
    assert_eq!(h.counts(), Some((7, 8)));
    assert_eq!(h.scope.as_deref(), Some("fn main() {"));
    let h = parse_hunk_header("@@ -3 +3 @@").unwrap();
    assert_eq!(h.counts(), Some((1, 1)));
    let h = parse_hunk_header("@@ -0,0 +1,2 @@").unwrap();
    assert_eq!((h.old_start, h.counts()), (Some(0), Some((0, 2))));
    assert_eq!(parse_hunk_header("@@").unwrap(), HunkHeader::default());
    let h = parse_hunk_header("@@ ... @@ impl X").unwrap();
    assert_eq!((h.counts(), h.scope.as_deref()), (None, Some("impl X")));
    let h = parse_hunk_header("@@ fn foo").unwrap();
    assert_eq!(h.scope.as_deref(), Some("fn foo"));
    assert!(parse_hunk_header("@@@ -1 -1 +1 @@@").is_none());
    assert!(parse_hunk_header("@@ -99999999999999999999999 +1 @@").is_some());
    assert!(parse_hunk_header("no").is_none());
}

#[test]
fn plain_unified_in_fence() {
    let x = extract(
        "Fix:\n\n```diff\n--- a/src/x.rs\t2024-01-01 00:00:00\n+++ b/src/x.rs\n@@ -10,3 +10,3 @@ fn f() {\n a\n-b\n+c\n d\n```\nDone.\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 1);
    let e = &x.edits[0];
    assert_eq!((e.path.as_str(), e.format), ("src/x.rs", Format::Unified));
    let h = &hunks(&e.change)[0];
    assert_eq!(
        lines(h),
        vec![(Context, "a"), (Remove, "b"), (Add, "c"), (Context, "d")]
    );
    assert_eq!(h.old_start, Some(10));
    assert_eq!(h.scopes, vec!["fn f() {"]);
    assert!(x.notes.is_empty(), "{:?}", x.notes);
}

#[test]
fn wrong_counts_are_recounted_and_noted() {
    let x = extract(
        "--- a/x\n+++ b/x\n@@ -1,9 +1,1 @@\n a\n-b\n+c\n d\n@@ -20,2 +20,2 @@\n e\n-f\n+g\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let hs = hunks(&x.edits[0].change);
    assert_eq!(hs.len(), 2);
    assert_eq!(hs[0].lines.len(), 4);
    assert_eq!(
        lines(&hs[1]),
        vec![(Context, "e"), (Remove, "f"), (Add, "g")]
    );
    assert!(x.notes.iter().any(|n| n.contains("recounted")));
}

#[test]
fn bare_and_dotted_headers() {
    let x = extract("--- a/x\n+++ b/x\n@@\n a\n-b\n+c\n@@ ... @@\n d\n+e\n");
    let hs = hunks(&x.edits[0].change);
    assert_eq!(hs.len(), 2);
    assert_eq!(hs[0].old_start, None);
    assert_eq!(lines(&hs[1]), vec![(Context, "d"), (Add, "e")]);
}

#[test]
fn git_create_delete_rename_mode() {
    let x = extract(
        "diff --git a/new.sh b/new.sh\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo hi\n\
         diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\
         diff --git a/old.rs b/new.rs\nsimilarity index 90%\nrename from old.rs\nrename to new.rs\n--- a/old.rs\n+++ b/new.rs\n@@ -1 +1 @@\n-x\n+y\n\
         diff --git a/m.sh b/m.sh\nold mode 100644\nnew mode 100755\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 4);
    assert_eq!(x.edits[0].path, "new.sh");
    assert_eq!(x.edits[0].format, Format::Git);
    assert_eq!(x.edits[0].mode, Some(0o100755));
    assert_eq!(
        x.edits[0].change,
        FileChange::Create {
            content: "#!/bin/sh\necho hi\n".into(),
            final_newline: true
        }
    );
    assert_eq!(x.edits[1].path, "gone.txt");
    assert_eq!(
        x.edits[1].change,
        FileChange::Delete {
            expected: Some("bye\n".into())
        }
    );
    assert_eq!(x.edits[2].path, "old.rs");
    let FileChange::Rename { to, hunks } = &x.edits[2].change else {
        panic!()
    };
    assert_eq!(to, "new.rs");
    assert_eq!(lines(&hunks[0]), vec![(Remove, "x"), (Add, "y")]);
    assert_eq!(x.edits[3].path, "m.sh");
    assert_eq!(x.edits[3].mode, Some(0o100755));
    assert_eq!(x.edits[3].change, FileChange::Modify { hunks: vec![] });
    // git's own header lines are ignored, and nothing needed mending: no notes.
    assert!(x.notes.is_empty(), "{:?}", x.notes);
}

#[test]
fn rename_without_hunks_and_quoted_paths() {
    let x = extract(
        "diff --git \"a/sp ace.txt\" \"b/sp\\303\\251.txt\"\nsimilarity index 100%\nrename from \"sp ace.txt\"\nrename to \"sp\\303\\251.txt\"\n",
    );
    assert_eq!(x.edits.len(), 1);
    assert_eq!(x.edits[0].path, "sp ace.txt");
    assert_eq!(
        x.edits[0].change,
        FileChange::Rename {
            to: "spé.txt".into(),
            hunks: vec![]
        }
    );
}

#[test]
fn binary_is_malformed() {
    let x = extract("diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n");
    assert!(x.edits.is_empty());
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
    assert_eq!(x.issues[0].path.as_deref(), Some("img.png"));
}

#[test]
fn no_newline_markers_pin_the_end() {
    let x = extract("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
    let h = &hunks(&x.edits[0].change)[0];
    assert!(h.old_no_newline && h.new_no_newline);
    assert_eq!(h.anchor, Anchor::End);
    let x = extract("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+only\n\\ No newline at end of file\n");
    assert_eq!(
        x.edits[0].change,
        FileChange::Create {
            content: "only".into(),
            final_newline: false
        }
    );
}

#[test]
fn zero_header_with_real_paths_inserts_at_the_start() {
    // Both sides name the file: it exists, and the lines go before its first line.
    let x = extract("--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+top\n+next\n");
    let h = &hunks(&x.edits[0].change)[0];
    assert_eq!(h.anchor, Anchor::Start);
    assert!(h.is_pure_insertion());
    assert_eq!(h.post_image().collect::<Vec<_>>(), ["top", "next"]);
    // The same from a git header without `new file mode`.
    let x = extract("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+top\n");
    assert_eq!(hunks(&x.edits[0].change)[0].anchor, Anchor::Start);
    // `/dev/null` still makes a new file.
    let x = extract("--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+top\n+next\n");
    assert_eq!(
        x.edits[0].change,
        FileChange::Create {
            content: "top\nnext\n".into(),
            final_newline: true
        }
    );
    // Among other hunks it only pins the start of the file.
    let x = extract("--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+top\n@@ -5 +6 @@\n-a\n+b\n");
    let h = &hunks(&x.edits[0].change)[0];
    assert_eq!(h.anchor, Anchor::Start);
    assert_eq!(h.old_start, None);
}

#[test]
fn absolute_paths_keep_their_form() {
    let x = extract("--- /dev/null\n+++ /tmp/evil\n@@ -0,0 +1 @@\n+x\n");
    assert_eq!(x.edits[0].path, "/tmp/evil");
}

#[test]
fn cut_bare_hunk_is_truncated() {
    let x = extract("--- a/x\n+++ b/x\n@@ -1,5 +1,6 @@\n a\n-b\n+c\n+d\n");
    assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
    assert_eq!(x.issues[0].path.as_deref(), Some("x"));
}

#[test]
fn short_hunk_ending_on_context_is_not_truncated() {
    // Counts too large on both sides but the body ends on context: wrong counts, not a cut.
    let x = extract("--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n a\n-b\n+c\n d\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    // Short on one side only: wrong counts, even at the very end of the reply.
    let x = extract("--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
}

#[test]
fn over_counted_hunk_then_a_list_is_not_a_body() {
    // The header over-counts; the Markdown list after the blank line would remove more lines
    // than it says: prose, not removed lines, and no truncation.
    let x =
        extract("--- a/x\n+++ b/x\n@@ -1,5 +1,6 @@\n a\n-b\n+c\n+d\n e\n\n- keeps it\n- no more\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let h = &hunks(&x.edits[0].change)[0];
    assert!(
        h.lines.iter().all(|l| !l.text.contains("keeps")),
        "{:?}",
        h.lines
    );
    // Removed lines that fit the header's count after a blank context line stay in the body.
    let x = extract("--- a/x\n+++ b/x\n@@ -1,4 +1,2 @@\n a\n\n-b\n-c\n");
    let h = &hunks(&x.edits[0].change)[0];
    assert_eq!(h.lines.len(), 4, "{:?}", h.lines);
}

#[test]
fn cut_line_with_one_short_side_is_truncated() {
    let x = extract("--- a/x\n+++ b/x\n@@ -1,2 +1,4 @@\n a\n-b\n+c\n+d is cu");
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
}

#[test]
fn unclosed_fence_around_diff_is_truncated() {
    let x = extract("Here:\n```diff\n--- a/x\n+++ b/x\n@@\n a\n-b\n+c\n");
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
    // A closed fence with a short hunk is only a count error.
    let x = extract("```diff\n--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b\n+c\n```\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    // Unclosed fence, complete hunk by its counts, prose after it: a forgotten close.
    let x = extract("```diff\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\nThat is all.\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
}

#[test]
fn multiple_files_and_prose_between() {
    let x = extract("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\nand then\n\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n");
    let paths: Vec<&str> = x.edits.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, vec!["x", "y"]);
}

#[test]
fn orphan_hunks_use_the_fence_path() {
    let x = extract("src/a.rs\n```diff\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\n");
    assert_eq!(x.edits[0].path, "src/a.rs");
    let x = extract("`src/a.rs`:\n```diff\n a\n-b\n+c\n```\n");
    assert_eq!(x.edits[0].path, "src/a.rs");
    assert_eq!(
        lines(&hunks(&x.edits[0].change)[0]),
        vec![(Context, "a"), (Remove, "b"), (Add, "c")]
    );
    let x = extract("Hm:\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
    assert_eq!(x.issues[0].path, None);
}

#[test]
fn elision_and_missing_plus_inside_git_hunk() {
    let x = extract(
        "diff --git a/m.rs b/m.rs\n--- a/m.rs\n+++ b/m.rs\n@@ -1,9 +1,10 @@\n fn a() {\n    // ...\n     x();\n+    y();\nlet z = 1;\n+    w();\n }\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let h = &hunks(&x.edits[0].change)[0];
    assert_eq!(
        lines(h),
        vec![
            (Context, "fn a() {"),
            (Context, "   // ..."),
            (Context, "    x();"),
            (Add, "    y();"),
            (Add, "let z = 1;"),
            (Add, "    w();"),
            (Context, "}"),
        ]
    );
}

#[test]
fn lazy_added_line_in_diff() {
    let x = extract("--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    pass\n+    # ... rest unchanged\n");
    assert_eq!(x.issues[0].kind, IssueKind::Lazy);
    assert_eq!(x.issues[0].path.as_deref(), Some("m.py"));
}

#[test]
fn a_body_at_the_reply_end_with_half_its_counted_lines_is_truncated() {
    // `-20,9 +20,2` over four lines, at the very end of a bare reply: the deletion was cut, not
    // miscounted; recounting would delete only the lines the model got to.
    let x = extract("--- a/x\n+++ b/x\n@@ -20,9 +20,2 @@\n a\n-b\n-c\n d\n");
    assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
    // The same hunk followed by another header, a closing fence or prose: a miscount.
    for tail in [
        "@@ -40 +40 @@\n-e\n+f\n",
        "```\n",
        "\nThat deletes the old block.\n",
    ] {
        let open = if tail == "```\n" { "```diff\n" } else { "" };
        let x = extract(&format!(
            "{open}--- a/x\n+++ b/x\n@@ -20,9 +20,2 @@\n a\n-b\n-c\n d\n{tail}"
        ));
        assert!(x.issues.is_empty(), "{tail:?}: {:?}", x.issues);
    }
    // Counts swapped (one side longer than its count) are a miscount, not a cut.
    let x = extract("--- a/x\n+++ b/x\n@@ -1,6 +1,2 @@\n a\n+b\n+c\n+d\n d\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
}

#[test]
fn a_reply_ending_on_a_lone_space_is_cut_not_a_blank_context_line() {
    let x = extract("--- a/x\n+++ b/x\n@@ -1,5 +1,4 @@\n a\n-b\n c\n ");
    assert_eq!(x.issues.len(), 1, "{:?}", x.issues);
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
    // With a newline after it, it is the blank context line the counts ask for.
    let x = extract("--- a/x\n+++ b/x\n@@ -1,4 +1,3 @@\n a\n-b\n c\n \n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
}
