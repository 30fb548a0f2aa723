//! Property tests of the applier.
//!
//! - Hunks built from a diff of random texts `a` and `b` (3 lines of context, correct line hints)
//!   apply to `a` and give exactly `b`, in any hunk order, with or without final newlines.
//! - With whitespace or Unicode drift injected into the context lines of those hunks, the result
//!   is `b` or a refusal, never a third text.
//! - With the reply's 4-space levels written as tabs (all lines, or only the added ones), the
//!   result is `b` or a refusal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use salve_patch::{apply_hunks, Anchor, Hunk, HunkLine, LineKind};
use similar::{capture_diff_slices, group_diff_ops, Algorithm, DiffOp};

/// Code-like lines, repeated often enough to make placement non-trivial.
const VOCAB: [&str; 12] = [
    "fn main() {",
    "    let x = \"a\";",
    "    call(x, 1);",
    "}",
    "",
    "    if x {",
    "        return;",
    "    }",
    "// note: it's done",
    "use std::io;",
    "    let y = 'b' - 1;",
    "struct S;",
];

fn lines() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(0..VOCAB.len(), 0..40)
        .prop_map(|v| v.into_iter().map(|i| VOCAB[i].to_string()).collect())
}

fn edited(a: Vec<String>) -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    let n = a.len();
    prop::collection::vec(
        (
            0..=n,
            0usize..3,
            prop::collection::vec(0..VOCAB.len() + 4, 0..3),
        ),
        1..4,
    )
    .prop_map(move |edits| {
        let mut b = a.clone();
        for (at, del, ins) in edits {
            let at = at.min(b.len());
            let del = del.min(b.len() - at);
            // Indices past the vocabulary make fresh lines, as real edits do.
            let new: Vec<String> = ins
                .into_iter()
                .map(|i| match VOCAB.get(i) {
                    Some(v) => v.to_string(),
                    None => format!("    fresh_{i}();"),
                })
                .collect();
            b.splice(at..at + del, new);
        }
        (a.clone(), b)
    })
}

fn join(lines: &[String], final_newline: bool) -> String {
    let mut s = lines.join("\n");
    if final_newline && !lines.is_empty() {
        s.push('\n');
    }
    s
}

/// Hunks from a to b as a diff tool writes them. `nl` says whether both texts end with a newline;
/// without one, hunks touching the last line carry the `\ No newline` flags.
fn hunks(a: &[String], b: &[String], nl: bool) -> Vec<Hunk> {
    let ops = capture_diff_slices(Algorithm::Myers, a, b);
    group_diff_ops(ops, 3)
        .into_iter()
        .map(|group| {
            let mut lines = Vec::new();
            for op in &group {
                let (_, o, n) = op.as_tag_tuple();
                if let DiffOp::Equal { .. } = op {
                    lines.extend(o.map(|k| HunkLine::new(LineKind::Context, a[k].clone())));
                } else {
                    lines.extend(o.map(|k| HunkLine::new(LineKind::Remove, a[k].clone())));
                    lines.extend(n.map(|k| HunkLine::new(LineKind::Add, b[k].clone())));
                }
            }
            let o0 = group
                .iter()
                .map(|op| op.old_range().start)
                .min()
                .unwrap_or(0);
            let o1 = group.iter().map(|op| op.old_range().end).max().unwrap_or(0);
            let n1 = group.iter().map(|op| op.new_range().end).max().unwrap_or(0);
            Hunk {
                lines,
                old_start: Some(o0 + 1),
                anchor: if a.is_empty() {
                    Anchor::Start
                } else {
                    Anchor::None
                },
                old_no_newline: !nl && o1 == a.len() && !a.is_empty(),
                new_no_newline: !nl && n1 == b.len() && !b.is_empty(),
                ..Hunk::default()
            }
        })
        .collect()
}

/// Whitespace or typographic drift of one context line.
fn drift(text: &str, kind: u8) -> String {
    match kind % 4 {
        0 => format!("{text}  "),
        1 => text.replace('"', "\u{201c}"),
        2 => text.replacen(' ', "\u{a0}", 1),
        _ => text.replace('\'', "\u{2019}").replace(" - ", " \u{2013} "),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    #[test]
    fn diff_hunks_apply_to_give_b(
        (a, b) in lines().prop_flat_map(edited),
        nl in any::<bool>(),
        reverse in any::<bool>(),
    ) {
        prop_assume!(a != b);
        // Without a final newline a file cannot end with an empty line.
        prop_assume!(nl || (a.last().is_none_or(|l| !l.is_empty()) && b.last().is_none_or(|l| !l.is_empty())));
        let (ta, tb) = (join(&a, nl), join(&b, nl));
        let mut hs = hunks(&a, &b, nl);
        if reverse {
            hs.reverse();
        }
        let out = apply_hunks(&ta, &hs, None);
        prop_assert_eq!(out.new_text.as_deref().unwrap_or(&ta), tb.as_str(), "{:#?}", out.hunks);
    }

    #[test]
    fn drift_gives_b_or_a_refusal(
        (a, b) in lines().prop_flat_map(edited),
        seed in prop::collection::vec(any::<u8>(), 1..8),
    ) {
        prop_assume!(a != b);
        let (ta, tb) = (join(&a, true), join(&b, true));
        let mut hs = hunks(&a, &b, true);
        let mut k = 0;
        for h in hs.iter_mut() {
            for l in h.lines.iter_mut().filter(|l| l.kind == LineKind::Context) {
                let s = seed[k % seed.len()];
                k += 1;
                if s % 3 == 0 {
                    l.text = drift(&l.text, s / 3);
                }
            }
        }
        let out = apply_hunks(&ta, &hs, None);
        if out.status.is_success() {
            prop_assert_eq!(out.new_text.as_deref().unwrap_or(&ta), tb.as_str(), "{:#?}", out.hunks);
        } else {
            prop_assert!(out.new_text.is_none());
        }
    }

    #[test]
    fn tabs_for_spaces_drift_gives_b_or_a_refusal(
        (a, b) in lines().prop_flat_map(edited),
        added_only in any::<bool>(),
    ) {
        // The reply writes each 4-space level as a tab: in every line, or only in the lines it
        // adds (its quoted lines then show nothing of it). Either way the result is b or a
        // refusal, never tabs written into the space-indented file.
        prop_assume!(a != b);
        // A file with no indented line has no style to follow: the reply's tabs are its own.
        prop_assume!(a.iter().any(|l| l.starts_with("  ")));
        let (ta, tb) = (join(&a, true), join(&b, true));
        let mut hs = hunks(&a, &b, true);
        for h in hs.iter_mut() {
            for l in h.lines.iter_mut().filter(|l| !added_only || l.kind == LineKind::Add) {
                let ws = l.text.len() - l.text.trim_start_matches(' ').len();
                l.text = format!("{}{}", "\t".repeat(ws / 4), &l.text[ws - ws % 4..]);
            }
        }
        let out = apply_hunks(&ta, &hs, None);
        if out.status.is_success() {
            prop_assert_eq!(out.new_text.as_deref().unwrap_or(&ta), tb.as_str(), "{:#?}", out.hunks);
        } else {
            prop_assert!(out.new_text.is_none());
        }
    }
}

#[test]
fn final_newline_flags_follow_the_last_line_of_each_side() {
    let a: Vec<String> = [
        "    let x = \"a\";",
        "    let x = \"a\";",
        "        return;",
        "        return;",
        "    }",
        "    }",
        "// note: it's done",
        "    let y = 'b' - 1;",
        "struct S;",
        "use std::io;",
        "    }",
        "    }",
        "// note: it's done",
        "    }",
        "fn main() {",
        "",
        "// note: it's done",
        "}",
        "    call(x, 1);",
        "    if x {",
        "use std::io;",
        "// note: it's done",
        "    }",
        "use std::io;",
        "    if x {",
        "    if x {",
        "// note: it's done",
        "use std::io;",
        "    call(x, 1);",
        "        return;",
        "// note: it's done",
        "    let x = \"a\";",
        "struct S;",
        "use std::io;",
        "    call(x, 1);",
        "struct S;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let b: Vec<String> = [
        "fn main() {",
        "    let x = \"a\";",
        "    let x = \"a\";",
        "        return;",
        "        return;",
        "    }",
        "    }",
        "// note: it's done",
        "    let y = 'b' - 1;",
        "struct S;",
        "use std::io;",
        "    }",
        "    }",
        "// note: it's done",
        "    }",
        "fn main() {",
        "",
        "// note: it's done",
        "}",
        "    call(x, 1);",
        "    if x {",
        "use std::io;",
        "// note: it's done",
        "    }",
        "use std::io;",
        "    if x {",
        "    if x {",
        "// note: it's done",
        "use std::io;",
        "    call(x, 1);",
        "        return;",
        "// note: it's done",
        "    let x = \"a\";",
        "struct S;",
        "fn main() {",
        "use std::io;",
        "use std::io;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let hs = hunks(&a, &b, false);
    let out = apply_hunks(&join(&a, false), &hs, None);
    assert_eq!(out.new_text.as_deref(), Some(join(&b, false).as_str()));
}
