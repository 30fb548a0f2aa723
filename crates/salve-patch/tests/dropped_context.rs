//! Quotes that left a line out, or lost the `+` of one, read where the loose rungs could tie
//! their lines one line off: refused or placed by the reading the reply's own lines allow, never
//! written one line off (generator counterexamples, issue 14 §3 f and n, §5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{apply_hunks, Hunk, HunkLine, LineKind, Rung, Status};

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

/// Two doc examples; the second has a fence line (`/// ````) before its last line.
const EXAMPLE: &str = "/// ```compile_fail\n/// locale!(\"th-TH-u-nu-thai\");\n/// ```\n/// Use runtime parsing instead:\nfn b() {}\n";

/// The deletion the quote below means, with the fence line it left out kept.
const DELETION: &str = " /// Locales with multiple keys are not supported\n-/// ```compile_fail\n-/// locale!(\"th-TH-u-nu-thai\");\n /// Use runtime parsing instead:\n fn b() {}";

#[test]
fn a_deletion_whose_quote_left_out_a_line_lands_with_the_line_kept() {
    let file = format!("/// Locales with multiple keys are not supported\n{EXAMPLE}");
    let out = apply_hunks(&file, &[hunk(DELETION)], None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    let want = "/// Locales with multiple keys are not supported\n/// ```\n/// Use runtime parsing instead:\nfn b() {}\n";
    assert_eq!(out.new_text.as_deref(), Some(want));
}

#[test]
fn a_deletion_whose_kept_lines_stand_elsewhere_is_not_read_as_applied() {
    // The deletion's result (its kept lines) stands at the top, as it stood before any edit;
    // its old text stands below with a line left out. Neither reading is the safer guess.
    let top = "/// Locales with multiple keys are not supported\n/// Use runtime parsing instead:\nfn b() {}\n\n";
    let file = format!("{top}/// Locales with multiple keys are not supported\n{EXAMPLE}");
    let out = apply_hunks(&file, &[hunk(DELETION)], None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

/// A match whose first arm's closing brace the quote below quotes without its `+`.
const MATCH: &str = "fn k(kind: Kind) -> Option<Kind> {\n    match kind {\n        Kind::All => Some(Kind::All),\n        Kind::First => {\n            Some(Kind::First)\n        }\n        Kind::Longest => None,\n    }\n}\n";

#[test]
fn a_brace_whose_plus_was_lost_is_not_tied_to_the_next_brace_out() {
    // `+        }` written as `        }`: read as context of seven spaces. Relaxed, the fit tied
    // it to the match's `    }` and the quoted `    }` to the function's `}`, the arm's brace
    // removed; the braces' widths are no shift of the worded lines', so that is no fit, and the
    // reading with the `+` back places exactly.
    let mut h = hunk(" fn k(kind: Kind) -> Option<Kind> {\n     match kind {\n         Kind::All => Some(Kind::All),\n         Kind::First => {\n-            Some(Kind::First)\n-        }\n-        Kind::Longest => None,\n+            new_Some(Kind::First)\n        }\n+        Kind::Longest => None_v2,\n     }\n }");
    h.maybe_added = vec![8];
    let out = apply_hunks(MATCH, &[h], None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    let want = MATCH
        .replace("    Some(Kind::First)", "    new_Some(Kind::First)")
        .replace("=> None,", "=> None_v2,");
    assert_eq!(out.new_text.as_deref(), Some(want.as_str()));
    assert_eq!(out.hunks[0].rung, Some(Rung::Exact));
}

#[test]
fn an_insertion_in_a_run_of_equal_lines_quoted_one_short_is_refused() {
    // Four rows of `2` between rows of `0`; the quote has three, the insertion after its first.
    // Which row it left out decides where the new lines go.
    let row = |d: &str| format!("  {}", format!("{d},").repeat(16));
    let (zeros, twos) = (row("0"), row("2"));
    let file = format!("data = [\n{zeros}\n{twos}\n{twos}\n{twos}\n{twos}\n{zeros}\n]\nnull = 0\n");
    let h = hunk(&format!(
        " {zeros}\n {twos}\n+nullValue = 0x0\n+\n {twos}\n {twos}\n {zeros}"
    ));
    let out = apply_hunks(&file, &[h], None);
    assert_ne!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

#[test]
fn a_short_deletion_whose_kept_lines_stand_in_another_test_is_not_read_as_applied() {
    // The quote left `pop_n(..)` out between the kept `push_batch(..)` and blank and the
    // `assert_eq!` and `}` it deletes; the kept lines stand in the test before. Three lines of
    // old text standing with a line left out are enough to say it is not gone.
    let file = "fn a() {\n    push_batch(10);\n\n    assert_eq!(5, pop_n(5));\n}\n\nfn b() {\n    push_batch(10);\n    pop_n(10);\n\n    assert_eq!(len(), 0);\n}\n";
    let h = hunk("     push_batch(10);\n \n-    assert_eq!(len(), 0);\n-}");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}
