//! Retried edits whose result already stands, read against braces at other indentations, and a
//! hunk whose header over-counts: reported as applied, refused, or placed where its own evidence
//! says, never written a second time one level deeper (generator counterexamples, issue 14 §5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{apply_hunks, extract, FileChange, Hunk, HunkLine, LineKind, Status};

/// A hunk from diff-like text: each line starts with ' ', '-' or '+'.
fn hunk(body: &str) -> Hunk {
    let lines = body
        .lines()
        .map(|l| {
            let (k, t) = l.split_at(1);
            let kind = match k {
                "-" => LineKind::Remove,
                "+" => LineKind::Add,
                _ => LineKind::Context,
            };
            HunkLine::new(kind, t)
        })
        .collect();
    Hunk {
        lines,
        ..Hunk::default()
    }
}

/// `impl A`'s closing brace deleted already: the file ends with `    }`.
const BRACE_DELETED: &str =
    "impl A {\n    fn f() {\n        if a() {\n            x();\n        }\n    }\n";

#[test]
fn a_retried_brace_deletion_is_not_made_again_one_level_deeper() {
    // `    }` / `}` with the `}` removed: the file's `        }` / `    }` is the same shape one
    // level deeper, over the `    }` the first run left. Deleting that would take the `if`'s
    // closing brace; the edit as made reads just as well.
    let out = apply_hunks(BRACE_DELETED, &[hunk("     }\n-}")], None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
    let message = out.hunks[0].message.clone().unwrap_or_default();
    assert!(message.contains("already stands at lines 6-6"), "{message}");
}

#[test]
fn the_same_deletion_still_lands_where_its_old_text_stands() {
    let file = format!("{BRACE_DELETED}}}\n");
    let out = apply_hunks(&file, &[hunk("     }\n-}")], None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(out.new_text.as_deref(), Some(BRACE_DELETED));
}

#[test]
fn a_retried_deletion_across_a_lost_blank_line_is_applied_already() {
    // `    }`, `}`, blank, `impl B {` became `    }`, `impl B {`. Read without its blank line
    // and with its braces one level deeper, the old text fits `        }`, `    }`, `impl B {`
    // across that result: braces only, at widths no straight line maps, say nothing.
    let file = format!("{BRACE_DELETED}impl B {{\n    fn g() {{}}\n}}\n");
    let out = apply_hunks(&file, &[hunk("     }\n-}\n-\n impl B {")], None);
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

#[test]
fn a_retried_insertion_beside_braces_across_a_lost_blank_line_is_applied_already() {
    // A comment inserted between `        }` / `    }` and `}`, then a blank line: the old
    // text read without its blank fits the braces one level deeper, before the comment.
    let file = "impl A {\n    fn f() {\n        for a in b() {\n            if a {\n                x();\n            }\n        }\n    }\n    /// # Example\n}\n\nfn g() {}\n";
    let h = hunk("         }\n     }\n+    /// # Example\n }\n ");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

/// Two equal functions; the first is followed by a blank line, the last ends the file.
const TWICE: &str = "fn a() {\n    run();\n}\n\nfn b() {}\n\nfn a() {\n    run();\n}\n";

#[test]
fn a_blank_line_an_over_count_pulled_in_does_not_choose_the_place() {
    // The header asked for one line more than the hunk has, so the blank line between the diff
    // and the prose after it became context: that fits only the first copy. The hint says the
    // last one; without the blank line both fit, and the hint chooses.
    let mut h = hunk(" fn a() {\n-    run();\n+    walk();\n }\n ");
    h.padded_tail = 1;
    h.old_start = Some(7);
    let out = apply_hunks(TWICE, &[h], None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    let want = "fn a() {\n    run();\n}\n\nfn b() {}\n\nfn a() {\n    walk();\n}\n";
    assert_eq!(out.new_text.as_deref(), Some(want));
}

#[test]
fn without_other_evidence_the_over_counted_hunk_is_ambiguous() {
    let mut h = hunk(" fn a() {\n-    run();\n+    walk();\n }\n ");
    h.padded_tail = 1;
    let out = apply_hunks(TWICE, &[h], None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

/// The hunks of a Claude Code `Edit` of `a.rs`, read from the reply as the engine reads it.
fn edit_hunks(old: &str, new: &str) -> Vec<Hunk> {
    let input = serde_json::json!({"file_path": "a.rs", "old_string": old, "new_string": new});
    let reply = serde_json::json!({"name": "Edit", "input": input}).to_string();
    let x = extract(&reply);
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    let Some(FileChange::Modify { hunks }) = x.edits.into_iter().next().map(|e| e.change) else {
        panic!("no modify edit in {reply}")
    };
    hunks
}

/// Five `usize,` parameters with the third renamed already: `usize` x3, `ezisu`, `usize` x3.
const RENAMED_IN_RUN: &str = "pub type Blt = eficall! {fn(\n    *mut Protocol,\n    *mut BltPixel,\n    BltOperation,\n    usize,\n    usize,\n    usize,\n    ezisu,\n    usize,\n    usize,\n    usize,\n) -> crate::base::Status};\n";

#[test]
fn a_retried_replacement_in_a_run_of_alike_lines_is_not_made_again_by_the_similar_rung() {
    // The old text (`usize,` five times) stands nowhere; its result does, and the similar rung
    // fits the old text one line off it with one line changed: rewriting there would leave
    // `ezisu` one line higher. Two readings: refused, nothing written.
    let five = "    usize,\n".repeat(5);
    let renamed = five
        .replacen("usize", "ezisu", 3)
        .replacen("ezisu", "usize", 2);
    let h = edit_hunks(five.trim_end(), renamed.trim_end());
    let out = apply_hunks(RENAMED_IN_RUN, &h, None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
    let message = out.hunks[0].message.clone().unwrap_or_default();
    assert!(
        message.contains("already stands at lines 6-10"),
        "{message}"
    );
}

#[test]
fn the_similar_rung_still_places_a_misquote_when_the_result_stands_nowhere() {
    let file = RENAMED_IN_RUN.replace("ezisu", "usize");
    // `BltPixel` misquoted as `BltPixl`: one line changed, the result nowhere, placed.
    let h = edit_hunks(
        "    *mut Protocol,\n    *mut BltPixl,\n    BltOperation,\n    usize,",
        "    *mut Protocol,\n    *mut BltPixl,\n    BltOp,\n    usize,",
    );
    let out = apply_hunks(&file, &h, None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    let want = file.replacen("BltOperation,", "BltOp,", 1);
    assert_eq!(out.new_text.as_deref(), Some(want.as_str()));
}

/// A file whose loops hold `// ...` comment lines, the second loop's edit made already.
const LOOPS: &str = "fn main() {\n    for a in x() {\n        // ...\n        wait(d);\n    }\n    for b in y() {\n        // ...\n        wait(new_d);\n    }\n    for c in z() {\n        // ...\n        wait(d);\n    }\n}\n";

#[test]
fn a_retried_edit_whose_marker_is_a_file_line_is_not_read_across_a_cut() {
    // Read as a cut, `// ...` lets the old text span from `for b` to the third loop's
    // `wait(d);`, over the second loop's own `// ...`; read as the file's own comment, the
    // edit's result stands at `for b`: applied already, nothing written.
    let h = hunk(
        "     for b in y() {\n         // ...\n-        wait(d);\n+        wait(new_d);\n     }",
    );
    let out = apply_hunks(LOOPS, &[h], None);
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

/// Two functions alike but for a two-line comment in the second.
const COMMENTED: &str = "fn a() {\n    weak();\n\n    if let Some(f) = get() {\n        f()\n    }\n}\n\nfn b() {\n    weak();\n\n    // Use a weak symbol\n    // but fail if not found.\n    if let Some(f) = get() {\n        f()\n    }\n}\n";

#[test]
fn a_deletion_quoted_with_a_line_left_out_is_not_applied_by_its_result_elsewhere() {
    // The first comment line removed, the second left out of the quote: the kept lines stand
    // together in `a`, as they stood before any edit. The old lines stand in `b` with the
    // second comment line between: misquoted, not absent, so `a` proves nothing.
    let h = hunk("     weak();\n \n-    // Use a weak symbol\n     if let Some(f) = get() {");
    let out = apply_hunks(COMMENTED, std::slice::from_ref(&h), None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
    let message = out.hunks[0].message.clone().unwrap_or_default();
    assert!(message.contains("with a line left out"), "{message}");
    // Once the comment line is gone, the old lines stand nowhere: the edit reads as applied.
    let made = COMMENTED.replace("    // Use a weak symbol\n", "");
    let out = apply_hunks(&made, &[h], None);
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
}

#[test]
fn a_text_deletion_quoted_with_a_line_left_out_is_not_applied_by_its_result_across_lines() {
    // The old text left out the second `#[cfg(x)]`. Its new text, from the newline before,
    // reads across `"a";`'s line end, that `#[cfg(x)]` and `const U`: standing as it did before
    // any edit. The old lines stand with the one line left out: misquoted, refused.
    let file = "mod t {\n\n    #[cfg(x)]\n    const A: &str = \"a\";\n    #[cfg(x)]\n    const U: &str = \"u\";\n}\n";
    let h = edit_hunks(
        "\n    #[cfg(x)]\n    const A: &str = \"a\";\n    const U: &str = \"u\";",
        "\n    #[cfg(x)]\n    const U: &str = \"u\";",
    );
    let out = apply_hunks(file, &h, None);
    assert_ne!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert_ne!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

/// Two like tests whose last `}` a first run deleted, and a third that still has it.
const TWO_RUNS: &str = "fn a() {\n    assert_eq!(\"0\", next());\n    assert!(done());\n    assert!(done_back());\n#[test]\nfn b() {\n    assert_eq!(\"3\", next());\n    assert!(done());\n    assert!(done_back());\n}\n\n#[test]\nfn c() {\n    assert_eq!(\"0\", next());\n    assert!(done());\n    assert!(done_back());\n";

#[test]
fn a_retried_deletion_whose_result_stands_twice_is_not_made_at_a_relaxed_fit() {
    // The deletion of `}` after the `"0"` assertion is made twice already; context-relax, which
    // leaves the `"0"` line out, finds the rest before `b`'s `}`. The quote's own lines stand
    // together elsewhere: that place is as good a reading as the relaxed one.
    let h = hunk(
        "     assert_eq!(\"0\", next());\n     assert!(done());\n     assert!(done_back());\n-}",
    );
    let out = apply_hunks(TWO_RUNS, &[h], None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

#[test]
fn without_its_result_elsewhere_the_relaxed_deletion_lands() {
    let file = "fn b() {\n    assert_eq!(\"3\", next());\n    assert!(done());\n    assert!(done_back());\n}\n";
    let h = hunk(
        "     assert_eq!(\"0\", next());\n     assert!(done());\n     assert!(done_back());\n-}",
    );
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(
        out.new_text.as_deref(),
        Some("fn b() {\n    assert_eq!(\"3\", next());\n    assert!(done());\n    assert!(done_back());\n")
    );
}

/// Nested matches whose innermost arm (`other => keep(other),` at 28 columns) sits between
/// braces at 32, 28 and 24 columns, at the end of a function that ends the file.
const NESTED: &str = "pub fn f(rule: Rule) -> Rule {\n    match rule {\n        Rule::A(r) => match r {\n            Rule::B(l) => {\n                match l {\n                    Rule::C(x) => {\n                        match x {\n                            Rule::D(y) => {\n                                if y.ok() {\n                                    y\n                                } else {\n                                    Rule::E\n                                }\n                            }\n                            other => keep(other),\n                        }\n                    }\n                    other => other,\n                }\n            }\n            other => other,\n        },\n        other => other,\n    }\n}\n";

#[test]
fn an_insertion_whose_result_stands_only_at_other_levels_is_not_applied_already() {
    // The reply inserts `other => keep(other),` at 28 columns after braces it quotes at 12 and
    // 4 columns, before the final `}`. Read with leading whitespace folded, its result stands
    // at the file's `}` (32), `}` (28), the arm (28) and `}` (24): no shift or rescaling maps
    // 12, 4, 28 and 0 onto those, so that is another block's text, not this edit made.
    let h = hunk("             }\n     }\n+                            other => keep(other),\n }");
    let out = apply_hunks(NESTED, &[h], None);
    assert_ne!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert!(
        !out.status.is_success() || out.new_text.is_some(),
        "{:#?}",
        out.hunks
    );

    // The same edit as an OpenCode-style JSON edit goes the text-replacement way.
    let reply = r#"{"filePath": "src/f.rs", "oldString": "            }\n    }\n}\n", "newString": "            }\n    }\n                            other => keep(other),\n}\n"}"#;
    let changes = extract(reply);
    let FileChange::Modify { hunks } = &changes.edits[0].change else {
        panic!("{changes:#?}")
    };
    let out = apply_hunks(NESTED, hunks, None);
    assert_ne!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
}

#[test]
fn the_same_insertion_made_one_level_deeper_is_applied_already() {
    // The edit made inside a module, every line 4 columns deeper than the reply wrote it (12, 4,
    // 28 and 0 as 16, 8, 32 and 4): one shift maps the reply's levels onto the file's.
    let made = "mod m {\n    fn f(x: X) {\n        match x {\n            X::A => {\n                if y() {\n                    z();\n                }\n        }\n                                other => keep(other),\n    }\n}\n";
    let h = hunk("             }\n     }\n+                            other => keep(other),\n }");
    let out = apply_hunks(made, &[h], None);
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

/// Three alike calls; the first two hold the first row alone, the last the second row and
/// `33,` too.
const ALIKE_CALLS: &str = "fn t() {\n    run(\"a\", || {\n        check(&[\n            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,\n        ])\n    });\n\n    run(\"b\", || {\n        check(&[\n            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,\n        ])\n    });\n\n    run(\"c\", || {\n        check(&[\n            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,\n            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,\n            33,\n        ])\n    });\n}\n";

/// The deletion of the second row from a call that held the two rows only.
const DELETE_ROW: (&str, &str) = (
    "        check(&[\n            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,\n            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,\n        ])\n    });",
    "        check(&[\n            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,\n        ])\n    });",
);

#[test]
fn a_retried_deletion_whose_result_stands_twice_is_not_made_in_an_alike_block() {
    // The old text stands nowhere; its result stands at `a` and at `b`, and the similar rung
    // reads `c` as the old text with one line changed (`33,` for `        ])`). Deleting the
    // row there is a guess beside two places where the edit reads as made: refused.
    let out = apply_hunks(ALIKE_CALLS, &edit_hunks(DELETE_ROW.0, DELETE_ROW.1), None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
    let message = out.hunks[0].message.clone().unwrap_or_default();
    assert!(message.contains("already stands at lines"), "{message}");
}

#[test]
fn the_similar_rung_still_places_a_deletion_whose_result_stands_nowhere() {
    // Only the third call: the result stands nowhere, and the one loose reading is placed.
    let file = ALIKE_CALLS.replacen("check(&[", "verify(&[", 2);
    let out = apply_hunks(&file, &edit_hunks(DELETE_ROW.0, DELETE_ROW.1), None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    let want = file.replacen(
        "            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,\n",
        "",
        1,
    );
    assert_eq!(out.new_text.as_deref(), Some(want.as_str()));
}
