//! Tests of [`extract`] across wrappers and mixed formats, and a no-panic property test.

use super::extract;
use crate::edit::{FileChange, Format, Hunk, IssueKind, LineKind};
use proptest::prelude::*;
use LineKind::{Add, Context, Remove};

fn lines(h: &Hunk) -> Vec<(LineKind, &str)> {
    h.lines.iter().map(|l| (l.kind, l.text.as_str())).collect()
}

fn paths(x: &crate::edit::Extraction) -> Vec<&str> {
    x.edits.iter().map(|e| e.path.as_str()).collect()
}

#[test]
fn nothing_is_no_edit() {
    for reply in [
        "",
        "Sorry, I cannot help with that.",
        "```rust\nfn a() {}\n```\n",
    ] {
        let x = extract(reply);
        assert!(x.edits.is_empty());
        assert_eq!(x.issues.len(), 1);
        assert_eq!(x.issues[0].kind, IssueKind::NoEdit);
        assert_eq!(x.issues[0].path, None);
    }
}

#[test]
fn markers_wrap_edits() {
    let x = extract(
        "Intro.\n\n<<<AI_DIFF_START>>>\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n<<<AI_DIFF_END>>>\n\nOutro.\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(paths(&x), vec!["x"]);
}

#[test]
fn markers_without_end_are_truncated() {
    let x = extract("<<<AI_DIFF_START>>>\n--- a/x\n+++ b/x\n@@\n a\n-b\n+c\n");
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
    assert_eq!(x.issues[0].path.as_deref(), Some("x"));
}

#[test]
fn four_backtick_fence_holds_inner_fence_lines() {
    let x = extract(
        "````diff\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n ```sh\n-rg a\n+rg b\n```\n````\n",
    );
    // The last body line lost its leading space, but it is still read before the close.
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(
        lines(&hunks[0])[..3],
        [(Context, "```sh"), (Remove, "rg a"), (Add, "rg b")]
    );
}

#[test]
fn mixed_formats_keep_reply_order() {
    let reply = "\
First the diff:

```diff
--- a/one.txt
+++ b/one.txt
@@ -1 +1 @@
-1
+one
```

Then a Codex patch:

```
*** Begin Patch
*** Update File: two.txt
@@
-2
+two
*** End Patch
```

three.txt
```
<<<<<<< SEARCH
3
=======
three
>>>>>>> REPLACE
```

```json
{\"path\": \"four.txt\", \"old_string\": \"4\", \"new_string\": \"four\"}
```

five.txt
```
whole five
```
";
    let x = extract(reply);
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(
        paths(&x),
        vec!["one.txt", "two.txt", "three.txt", "four.txt", "five.txt"]
    );
    let formats: Vec<Format> = x.edits.iter().map(|e| e.format).collect();
    assert_eq!(
        formats,
        vec![
            Format::Unified,
            Format::Codex,
            Format::SearchReplace,
            Format::OldNewJson,
            Format::WholeFile
        ]
    );
    assert_eq!(x.formats().len(), 5);
}

#[test]
fn same_file_edits_merge_and_repeats_drop() {
    let d = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    let x = extract(&format!(
        "{d}\nAgain:\n\n{d}\n--- a/x\n+++ b/x\n@@ -9 +9 @@\n-c\n+d\n"
    ));
    assert_eq!(x.edits.len(), 1);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks.len(), 2);
    assert!(x.notes.iter().any(|n| n.contains("merged")));
}

#[test]
fn crlf_reply() {
    let x = extract("--- a/x\r\n+++ b/x\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n");
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(
        lines(&hunks[0]),
        vec![(Context, "a"), (Remove, "b"), (Add, "c")]
    );
}

#[test]
fn fence_inside_markers_with_path_line() {
    let x = extract(
        "<<<AI_DIFF_START>>>\nREADME.md\n````markdown\n<<<<<<< SEARCH\na\n```\n=======\nb\n```\n>>>>>>> REPLACE\n````\n<<<AI_DIFF_END>>>\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(paths(&x), vec!["README.md"]);
}

#[test]
fn tilde_fence_and_indented_fence() {
    let x = extract("~~~diff\n--- a/x\n+++ b/x\n@@\n-a\n+b\n~~~\n\n  ```diff\n  ```\n");
    assert_eq!(paths(&x), vec!["x"]);
}

#[test]
fn deep_nesting_does_not_overflow() {
    let reply = "<<<AI_DIFF_START>>>\n".repeat(5000) + "--- a/x\n+++ b/x\n@@\n-a\n+b\n";
    let x = extract(&reply);
    assert_eq!(paths(&x), vec!["x"]);
    let reply = "````\n".repeat(3000);
    let _ = extract(&reply);
}

#[test]
fn large_inputs_stay_fast() {
    let start = std::time::Instant::now();
    let mut reply = String::from("--- a/x\n+++ b/x\n@@\n");
    for k in 0..100_000 {
        reply.push_str(&format!("+line {k}\n\n"));
    }
    let x = extract(&reply);
    assert_eq!(x.edits.len(), 1);
    let many_braces = "{\n".repeat(50_000) + &"[\n".repeat(50_000);
    let _ = extract(&many_braces);
    let many_searches = "<<<<<<< SEARCH\n".repeat(20_000);
    let _ = extract(&many_searches);
    let many_fences = "x.rs\n```\n".repeat(20_000);
    let _ = extract(&many_fences);
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
}

/// Fragments that exercise every reader, glued at random.
const PIECES: &[&str] = &[
    "\n",
    "diff --git a/x b/x\n",
    "--- a/x\n",
    "+++ b/x\n",
    "--- /dev/null\n",
    "@@ -1,2 +1,3 @@\n",
    "@@\n",
    "@@ ... @@ fn\n",
    " ctx\n",
    "+add\n",
    "-del\n",
    "\\ No newline at end of file\n",
    "plain\n",
    "// ...\n",
    "```\n",
    "````diff\n",
    "```rust src/a.rs\n",
    "<<<AI_DIFF_START>>>\n",
    "<<<AI_DIFF_END>>>\n",
    "*** Begin Patch\n",
    "*** Update File: a\n",
    "*** Add File: b\n",
    "*** Move to: c\n",
    "*** End of File\n",
    "*** End Patch\n",
    "<<<<<<< SEARCH\n",
    "=======\n",
    ">>>>>>> REPLACE\n",
    ":start_line:3\n",
    "src/lib.rs\n",
    "{\"path\": \"a\", \"old_string\": \"x\", ",
    "\"new_string\": \"y\"}\n",
    "[{\n",
    "\"é\\u00e9\"\r\n",
    "new file mode 100644\n",
    "rename from a\n",
    "Binary files a and b differ\n",
    "1 | x\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn never_panics_on_fragments(idx in proptest::collection::vec(0..PIECES.len(), 0..40), cut in 0usize..2000) {
        let text: String = idx.iter().map(|&k| PIECES[k]).collect();
        let mut end = cut.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let x = extract(&text[..end]);
        prop_assert!(!x.edits.is_empty() || !x.issues.is_empty());
    }

    #[test]
    fn never_panics_on_arbitrary_text(s in "\\PC*") {
        let x = extract(&s);
        prop_assert!(!x.edits.is_empty() || !x.issues.is_empty());
    }
}

#[test]
fn prose_named_path_serves_headerless_hunks_and_blocks() {
    let x =
        extract("Update `src/lib.rs` like this:\n\n```diff\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(paths(&x), vec!["src/lib.rs"]);
    let x = extract("In `src/m.rs`:\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n");
    assert_eq!(paths(&x), vec!["src/m.rs"]);
    // A prose mention is not enough for a whole-file replacement.
    let x = extract("Update `src/lib.rs` like this:\n\n```rust\nfn a() {}\n```\n");
    assert!(x.edits.is_empty());
}

#[test]
fn config_json_with_replace_key_is_whole_file() {
    let x = extract("config.json\n```json\n{\"replace\": \"x\", \"name\": \"y\"}\n```\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits[0].format, Format::WholeFile);
}

#[test]
fn placeholder_predicate_matches_whole_file_rule() {
    assert!(super::is_placeholder(
        "    // ... existing code ...",
        "src/a.rs"
    ));
    assert!(super::is_placeholder("// ...", "src/a.rs"));
    assert!(super::is_placeholder("...", "README.md"));
    assert!(!super::is_placeholder("    ...", "a.py"));
    assert!(!super::is_placeholder("let x = 1;", "src/a.rs"));
    // Gap shapes the whole-file applier fills count too, so new files refuse them.
    assert!(super::is_placeholder("// ... snip", "src/a.rs"));
    assert!(super::is_placeholder("    # ...", "a.py"));
    assert!(!super::is_placeholder("  ...defaults,", "a.js"));
}

#[test]
fn many_blocks_for_one_file_are_merged_and_repeats_dropped() {
    let mut reply = String::from("a.rs\n");
    for k in 0..20_000 {
        reply.push_str(&format!(
            "<<<<<<< SEARCH\nx{k}\n=======\ny{k}\n>>>>>>> REPLACE\n"
        ));
    }
    let x = extract(&reply);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks.len(), 20_000);
    // The same blocks again (a reply that repeats itself) add nothing.
    let twice = format!("{reply}{}", &reply["a.rs\n".len()..]);
    let x = extract(&twice);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks.len(), 20_000);
    let mut reply = String::new();
    for k in 0..20_000 {
        reply.push_str(&format!(
            "--- a/f{k}\n+++ b/f{k}\n@@ -1,9 +1,9 @@\n-a\n+b\n"
        ));
    }
    let x = extract(&reply);
    assert_eq!(x.edits.len(), 20_000);
    assert_eq!(x.notes.len(), 20_000);
}

/// The formats table covers every format but whole files (what a fence with a path holds when
/// no reader leads its content).
#[test]
fn every_format_but_whole_files_has_a_reader() {
    let read = super::readers::formats();
    for format in [
        Format::Git,
        Format::Unified,
        Format::Codex,
        Format::SearchReplace,
        Format::OldNewJson,
        Format::ToolXml,
        Format::ToolJson,
        Format::Snippet,
    ] {
        assert!(read.contains(&format), "{format:?} has no reader");
    }
    assert!(!read.contains(&Format::WholeFile));
}

#[test]
fn loose_path_lines_name_blocks_the_tree_must_confirm() {
    let x = extract("docs/My Notes/read me.md\n```\n<<<<<<< SEARCH\none line\n=======\none LINE\n>>>>>>> REPLACE\n```\n\nsrc/app/(shop)/[id]/page.tsx\n```tsx\nexport default 1;\n```\n");
    assert_eq!(x.edits.len(), 1, "{:?}", x.edits);
    assert_eq!(x.edits[0].path, "docs/My Notes/read me.md");
    assert_eq!(x.bare_named.len(), 1);
    assert!(x.bare_named[0].loose);
    assert_eq!(x.bare_named[0].edit.path, "src/app/(shop)/[id]/page.tsx");
    assert_eq!(x.issues.len(), 1);
}
