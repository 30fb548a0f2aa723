//! Tests of the substring rung.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::ops::assemble;

fn pair(old: &str, new: &str) -> TextPair {
    TextPair {
        old: old.into(),
        new: new.into(),
    }
}

fn applied(file: &str, old: &str, new: &str) -> String {
    let doc = Doc::parse(file);
    let flat = Flat::new(&doc);
    match find(&doc, &flat, &pair(old, new), true) {
        TextFound::One(op) => assemble(&doc, &[op], None, true),
        other => panic!("{other:?}"),
    }
}

#[test]
fn whole_lines_inside_deeper_indentation_are_no_exact_reading() {
    let doc = Doc::parse("if a {\n        fail;\n}\n    fail;\n\nb\n");
    let flat = Flat::new(&doc);
    // Whole lines at 6 spaces: inside line 2's 8 they stand deeper than written.
    assert_eq!(
        exact_apart(&flat, &pair("      fail;\n", "x\n"), &[(3, 5)]),
        None
    );
    // Text that ends mid-line stands there as written: a reading of its own.
    assert_eq!(
        exact_apart(&flat, &pair("      fail;", "x"), &[(3, 5)]),
        Some((1, 2))
    );
    // At the line's start the bytes are the line's own.
    assert_eq!(
        exact_apart(&flat, &pair("        fail;\n", "x\n"), &[(3, 5)]),
        Some((1, 2))
    );
}

#[test]
fn replaces_a_span_inside_a_line() {
    assert_eq!(
        applied(
            "a\n    x = compute(1)  # note\nb\n",
            "x = compute(1)",
            "x = compute(2)"
        ),
        "a\n    x = compute(2)  # note\nb\n"
    );
}

#[test]
fn keeps_crlf_endings_and_a_missing_final_newline() {
    assert_eq!(
        applied(
            "a = f(1) + 1\r\nb = 2\r\nc",
            "f(1) + 1\nb = 2",
            "g(1)\nb = 3"
        ),
        "a = g(1)\r\nb = 3\r\nc"
    );
    assert_eq!(applied("x = 1; y = 2", "y = 2", "y = 3"), "x = 1; y = 3");
}

#[test]
fn multi_line_span_starting_mid_line() {
    let file = "def f():\n    return g(1,\n             2)\n";
    assert_eq!(
        applied(file, "g(1,\n             2)", "g(1, 2, 3)"),
        "def f():\n    return g(1, 2, 3)\n"
    );
    // More lines than before: the extra lines take the file's ending.
    assert_eq!(
        applied("p\r\nq(a)\r\n", "q(a)", "q(\n    a,\n)"),
        "p\r\nq(\r\n    a,\r\n)\r\n"
    );
}

#[test]
fn a_span_ending_with_its_newline_joins_the_next_line_only_when_needed() {
    // Removing whole lines.
    assert_eq!(applied("a\nb\nc\n", "b\n", ""), "a\nc\n");
    // The new text does not end its line, so it runs into the next one.
    assert_eq!(applied("a\nx.b\nc\n", "b\n", "B "), "a\nx.B c\n");
}

#[test]
fn the_start_of_longer_words_is_another_reading() {
    let doc = Doc::parse("use rand::Rng;\nuse rand_core::RngCore;\n");
    let flat = Flat::new(&doc);
    let found = find(&doc, &flat, &pair("use rand", "use fastrand"), true);
    assert!(
        matches!(found, TextFound::Many(ref ops) if ops.len() == 2),
        "{found:?}"
    );
}

#[test]
fn text_inside_a_longer_word_is_not_an_occurrence() {
    // `count = 1` is the tail of `max_count = 1`, not the line `count = 1` (issue 14 §3 n).
    let doc = Doc::parse("max_count = 1\ncount = 1\n");
    let flat = Flat::new(&doc);
    let TextFound::One(op) = find(&doc, &flat, &pair("count = 1", "count = 2"), true) else {
        panic!()
    };
    assert_eq!((op.start, op.end), (1, 2));
    let doc = Doc::parse("max_count = 1\n");
    let flat = Flat::new(&doc);
    assert_eq!(
        find(&doc, &flat, &pair("count = 1", "count = 2"), true),
        TextFound::Missing
    );
}

#[test]
fn several_occurrences_are_listed_with_their_lines() {
    let doc = Doc::parse("f(1)\ng(f(1))\nf(1) + 1\n");
    let flat = Flat::new(&doc);
    let TextFound::Many(ops) = find(&doc, &flat, &pair("f(1)", "f(2)"), true) else {
        panic!()
    };
    let ranges: Vec<(usize, usize)> = ops.iter().map(|o| (o.start, o.end)).collect();
    assert_eq!(ranges, vec![(0, 1), (1, 2), (2, 3)]);
    // Overlapping occurrences count too.
    let doc = Doc::parse(":::\n");
    let flat = Flat::new(&doc);
    assert!(matches!(
        find(&doc, &flat, &pair("::", "b"), true),
        TextFound::Many(v) if v.len() == 2
    ));
}

#[test]
fn the_leftover_of_an_edge_deletion_is_no_proof() {
    // The old text (a line left out of it) is not in the file; its new text is its own
    // last lines, which stood there before: not found, not "already applied".
    let doc = Doc::parse("//! Head.\n//!\n//! # Safety\n//!\n");
    let flat = Flat::new(&doc);
    let p = pair("//! Head.\n//! # Safety\n//!\n", "//! # Safety\n//!\n");
    assert_eq!(find(&doc, &flat, &p, true), TextFound::Missing);
}

#[test]
fn new_lines_found_inside_a_deeper_indentation_are_no_proof_of_applied() {
    // A 2-space reply inserting `    });` (the file's `        });`) after `  });`: its new
    // text reads inside the last three lines, from the middle of an 8-space indentation.
    let doc = Doc::parse(
        "    f(|| {
    g();
    });
});
}
",
    );
    let flat = Flat::new(&doc);
    let found = find(&doc, &flat, &pair("  });\n}", "  });\n    });\n}"), false);
    assert_eq!(found, TextFound::Missing);
}

#[test]
fn the_new_text_alone_means_already_applied() {
    let doc = Doc::parse("a\n    x = compute(2)  # note\n");
    let flat = Flat::new(&doc);
    assert_eq!(
        find(&doc, &flat, &pair("x = compute(1)", "x = compute(2)"), true),
        TextFound::AlreadyApplied { start: 1, end: 2 }
    );
    // The old text only inside the new text: the wrap is already there.
    let doc = Doc::parse("y = g(f(x))\n");
    let flat = Flat::new(&doc);
    assert_eq!(
        find(&doc, &flat, &pair("f(x)", "g(f(x))"), true),
        TextFound::AlreadyApplied { start: 0, end: 1 }
    );
    // The old text outside the new text: not done yet.
    let doc = Doc::parse("x = 1; y = 2\n");
    let flat = Flat::new(&doc);
    assert!(matches!(
        find(&doc, &flat, &pair("x = 1", "y = 2"), true),
        TextFound::One(_)
    ));
    let doc = Doc::parse("y = g(f(x))\nz = f(x)\n");
    let flat = Flat::new(&doc);
    assert!(matches!(
        find(&doc, &flat, &pair("f(x)", "g(f(x))"), true),
        TextFound::Many(_)
    ));
}

#[test]
fn the_new_text_alone_proves_nothing_when_the_old_text_is_there_loosely() {
    // A deletion whose new text is the context it keeps: the old text is not there
    // byte for byte (a typographic dash), but the ladder finds it loosely.
    let doc = Doc::parse("a: 1\nb: 2\n- c\n");
    let flat = Flat::new(&doc);
    let p = pair("a: 1\nb: 2\n\u{2013} c", "a: 1\nb: 2");
    assert_eq!(find(&doc, &flat, &p, false), TextFound::Missing);
    // Nor when it is absent: the new text is the old text's first lines, which stand
    // whether or not the last was removed (the line ladder asks the file about that).
    assert_eq!(find(&doc, &flat, &p, true), TextFound::Missing);
    // A deletion inside the old text keeps lines on both sides: those standing together
    // are the proof.
    let doc = Doc::parse("a: 1\nb: 2\n");
    let flat = Flat::new(&doc);
    let p = pair("a: 1\n\u{2013} c\nb: 2", "a: 1\nb: 2");
    assert_eq!(
        find(&doc, &flat, &p, true),
        TextFound::AlreadyApplied { start: 0, end: 2 }
    );
}

#[test]
fn absent_text_is_missing() {
    let doc = Doc::parse("a\nb\n");
    let flat = Flat::new(&doc);
    assert_eq!(find(&doc, &flat, &pair("c", "d"), true), TextFound::Missing);
    assert_eq!(
        find(&doc, &flat, &pair("  ", "d"), true),
        TextFound::Missing
    );
}
