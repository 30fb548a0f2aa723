//! Tests of the SEARCH/REPLACE reader and of the search/replace lowering.

use crate::edit::{FileChange, Format, Hunk, IssueKind, LineKind, TextPair};
use crate::parse::extract;
use crate::parse::pair::lower;
use LineKind::{Add, Context, Remove};

fn only_hunk(c: &FileChange) -> &Hunk {
    match c {
        FileChange::Modify { hunks } if hunks.len() == 1 => &hunks[0],
        other => panic!("not a one-hunk modify: {other:?}"),
    }
}

fn lines(h: &Hunk) -> Vec<(LineKind, &str)> {
    h.lines.iter().map(|l| (l.kind, l.text.as_str())).collect()
}

#[test]
fn lowering_keeps_images_exact() {
    let s = ["a", "b", "c", "d", "e"];
    let r = ["a", "B", "c", "e", "f"];
    let got = lower(&s, &r);
    let pre: Vec<&str> = got
        .iter()
        .filter(|l| l.kind != Add)
        .map(|l| l.text.as_str())
        .collect();
    let post: Vec<&str> = got
        .iter()
        .filter(|l| l.kind != Remove)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(pre, s);
    assert_eq!(post, r);
    assert_eq!(got[0].kind, Context);
    assert!(got.iter().any(|l| l.kind == Context && l.text == "c"));
}

#[test]
fn lowering_edge_cases() {
    assert!(lower(&[], &[]).is_empty());
    assert_eq!(lower(&["x"], &[]).len(), 1);
    assert_eq!(lower(&["x", "x"], &["x"]).len(), 2);
    let big: Vec<String> = (0..5000).map(|k| format!("l{k}")).collect();
    let big: Vec<&str> = big.iter().map(String::as_str).collect();
    let rev: Vec<&str> = big.iter().rev().copied().collect();
    assert_eq!(lower(&big, &rev).len(), 10000);
}

#[test]
fn aider_block_with_path_line() {
    let x = extract(
        "Change:\n\nsrc/lib.rs\n```rust\n<<<<<<< SEARCH\nfn a() {\n    1\n}\n=======\nfn a() {\n    2\n}\n>>>>>>> REPLACE\n```\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 1);
    assert_eq!(x.edits[0].path, "src/lib.rs");
    assert_eq!(x.edits[0].format, Format::SearchReplace);
    assert_eq!(
        lines(only_hunk(&x.edits[0].change)),
        vec![
            (Context, "fn a() {"),
            (Remove, "    1"),
            (Add, "    2"),
            (Context, "}")
        ]
    );
}

#[test]
fn several_blocks_several_fences_and_inner_fence() {
    let x = extract(
        "a.md\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n```sh\nold\n```\n=======\n```sh\nnew\n```\n>>>>>>> REPLACE\n```\n\nb.rs\n```rust\n<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE\n```\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let paths: Vec<&str> = x.edits.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, vec!["a.md", "b.rs"]);
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks.len(), 2);
    assert_eq!(
        lines(&hunks[1]),
        vec![
            (Context, "```sh"),
            (Remove, "old"),
            (Add, "new"),
            (Context, "```")
        ]
    );
}

#[test]
fn cline_roo_markers_and_start_line() {
    let x =
        extract("<<<<<<<<< SEARCH\n:start_line:42\n-------\na\n=========\nb\n>>>>>>>>> REPLACE\n");
    // No path anywhere: the block cannot be placed.
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
    let x = extract(
        "<path>src/x.ts</path>\n<<<<<<< SEARCH\n:start_line:42\n-------\na\n=======\nb\n>>>>>>> REPLACE\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let h = only_hunk(&x.edits[0].change);
    assert_eq!(h.old_start, Some(42));
    assert_eq!(lines(h), vec![(Remove, "a"), (Add, "b")]);
    let x = extract("x.ts\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n");
    assert_eq!(
        lines(only_hunk(&x.edits[0].change)),
        vec![(Remove, "a"), (Add, "b")]
    );
}

#[test]
fn path_in_info_string_and_inherited_path() {
    let x = extract(
        "```rust src/m.rs\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n```\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n",
    );
    assert_eq!(x.edits.len(), 1);
    assert_eq!(x.edits[0].path, "src/m.rs");
    let FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!()
    };
    assert_eq!(hunks.len(), 2);
}

#[test]
fn empty_search_creates() {
    let x =
        extract("new/file.txt\n```\n<<<<<<< SEARCH\n=======\nhello\nworld\n>>>>>>> REPLACE\n```\n");
    assert_eq!(
        x.edits[0].change,
        FileChange::Create {
            content: "hello\nworld\n".into(),
            final_newline: true
        }
    );
}

#[test]
fn divider_inside_text() {
    // Three dividers: the underline is kept on both sides, the middle one splits.
    let x = extract("a.md\n<<<<<<< SEARCH\nTitle\n=======\nold\n=======\nTitle\n=======\nnew\n>>>>>>> REPLACE\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(
        lines(only_hunk(&x.edits[0].change)),
        vec![
            (Context, "Title"),
            (Context, "======="),
            (Remove, "old"),
            (Add, "new")
        ]
    );
    let x = extract("a.md\n<<<<<<< SEARCH\nT\n=======\n=======\nx\n>>>>>>> REPLACE\n");
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
}

#[test]
fn unclosed_block_is_truncated_or_malformed() {
    let x = extract("a.rs\n```rust\n<<<<<<< SEARCH\nfn a() {\n=======\nfn b() {");
    assert_eq!(x.issues[0].kind, IssueKind::Truncated);
    assert_eq!(x.issues[0].path.as_deref(), Some("a.rs"));
    let x = extract(
        "a.rs\n<<<<<<< SEARCH\nx\n=======\ny\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
    );
    assert_eq!(x.issues[0].kind, IssueKind::Malformed);
    assert_eq!(x.edits.len(), 1);
}

#[test]
fn elision_kept_as_context_and_lazy_replacement_refused() {
    let x = extract("a.rs\n<<<<<<< SEARCH\nfn a() {\n    // ...\n}\n=======\nfn a() {\n    // ...\n    b();\n}\n>>>>>>> REPLACE\n");
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(
        lines(only_hunk(&x.edits[0].change)),
        vec![
            (Context, "fn a() {"),
            (Context, "    // ..."),
            (Add, "    b();"),
            (Context, "}")
        ]
    );
    let x = extract("a.rs\n<<<<<<< SEARCH\nfn a() {\n    x();\n}\n=======\nfn a() {\n    // ... existing code ...\n}\n>>>>>>> REPLACE\n");
    assert_eq!(x.issues[0].kind, IssueKind::Lazy);
}

#[test]
fn numbered_search_is_stripped_and_hints_start() {
    let x = extract("a.rs\n<<<<<<< SEARCH\n7 | a\n8 | b\n=======\na\nB\n>>>>>>> REPLACE\n");
    let h = only_hunk(&x.edits[0].change);
    assert_eq!(h.old_start, Some(7));
    assert_eq!(lines(h), vec![(Context, "a"), (Remove, "b"), (Add, "B")]);
}

#[test]
fn a_block_keeps_its_text_for_substring_placement() {
    let x = extract(
        "a.py\n```python\r\n<<<<<<< SEARCH\r\n12 | x = f(1,\r\n13 |       2)\r\n=======\r\nx = f(3)\r\n>>>>>>> REPLACE\r\n```\r\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let h = only_hunk(&x.edits[0].change);
    // Line-number prefixes and carriage returns are gone; a block's last line does not end the
    // replaced text, which may stop mid-line.
    assert_eq!(
        h.substring,
        Some(TextPair {
            old: "x = f(1,\n      2)".into(),
            new: "x = f(3)".into()
        })
    );
    let back = h.reversed();
    assert_eq!(
        back.substring.as_ref().map(|p| p.old.as_str()),
        Some("x = f(3)")
    );
}

#[test]
fn a_reply_cut_after_a_block_inside_its_unclosed_fence_is_truncated() {
    let block = "n.txt\n```\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n";
    for tail in ["..", "...\n<<<", "src/b.txt\n"] {
        let x = extract(&format!("{block}{tail}"));
        assert!(
            x.issues.iter().any(|i| i.kind == IssueKind::Truncated),
            "{tail:?}: {:?}",
            x.issues
        );
    }
    // The fence closed: the text after the block is prose.
    let x = extract(&format!("{block}...\n```\n"));
    assert!(x.issues.is_empty(), "{:?}", x.issues);
}

#[test]
fn roo_escaped_markers_are_text_without_the_backslash() {
    let x = crate::parse::extract(
        "a.txt\n```\n<<<<<<< SEARCH\nold\n=======\n\\:start_line:3\n\\=======\nnew\n>>>>>>> REPLACE\n```\n",
    );
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let crate::edit::FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!("{:?}", x.edits)
    };
    let added: Vec<&str> = hunks[0]
        .lines
        .iter()
        .filter(|l| l.kind == crate::edit::LineKind::Add)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(added, [":start_line:3", "=======", "new"]);
}

/// Markers with nothing between them name no change: never an empty new file under the word
/// before them (a whole file that quotes markers, cut short, was read so).
#[test]
fn a_block_empty_on_both_sides_is_malformed_not_an_empty_new_file() {
    let x = extract(
        "tests/conflict.txt\n```\nintro\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n...\n```\n",
    );
    assert!(x.edits.is_empty(), "{:?}", x.edits);
    assert!(
        x.issues.iter().any(|i| i.kind == IssueKind::Malformed),
        "{:?}",
        x.issues
    );
}
