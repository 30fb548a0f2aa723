//! The placement ladder and the applier's rules, one behaviour per test, through the public
//! API (`apply::apply_hunks`). Each test states the outcome a careful user expects.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{apply_hunks, Anchor, Hunk, HunkLine, LineKind, Rung, Status};

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

fn with_start(mut h: Hunk, start: usize) -> Hunk {
    h.old_start = Some(start);
    h
}

fn applied(file: &str, hunks: &[Hunk]) -> (String, Vec<Option<Rung>>) {
    let out = apply_hunks(file, hunks, None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    (
        out.new_text.expect("new text"),
        out.hunks.iter().map(|h| h.rung).collect(),
    )
}

const CODE: &str = "fn main() {\n    let a = 1;\n    let b = 2;\n    println!(\"{}\", a + b);\n}\n";

#[test]
fn exact() {
    let h = hunk(" fn main() {\n     let a = 1;\n-    let b = 2;\n+    let b = 3;\n     println!(\"{}\", a + b);");
    let (text, rungs) = applied(CODE, &[h]);
    assert_eq!(text, CODE.replace("b = 2", "b = 3"));
    assert_eq!(rungs, vec![Some(Rung::Exact)]);
}

#[test]
fn trailing_whitespace_is_ignored_and_the_file_keeps_its_bytes() {
    let file = "a  \nb\nc\t\n";
    let h = hunk(" a\n-b\n+B\n c");
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(text, "a  \nB\nc\t\n");
    assert_eq!(rungs, vec![Some(Rung::TrailingWs)]);
}

#[test]
fn indent_delta_reindents_added_lines() {
    // The model wrote the block one level shallower than the file.
    let h = hunk(" let a = 1;\n-let b = 2;\n+let b = 3;\n+if b > 2 {\n+    go();\n+}\n println!(\"{}\", a + b);");
    let (text, rungs) = applied(CODE, &[h]);
    assert_eq!(
        text,
        "fn main() {\n    let a = 1;\n    let b = 3;\n    if b > 2 {\n        go();\n    }\n    println!(\"{}\", a + b);\n}\n"
    );
    assert_eq!(rungs, vec![Some(Rung::Indent)]);
}

#[test]
fn tabs_written_as_spaces_come_back_as_tabs() {
    let file = "func f() {\n\tx := 1\n\tif x {\n\t\ty()\n\t}\n}\n";
    let h = hunk("     x := 1\n     if x {\n-        y()\n+        z()\n+        w()\n     }");
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(
        text,
        "func f() {\n\tx := 1\n\tif x {\n\t\tz()\n\t\tw()\n\t}\n}\n"
    );
    assert_eq!(rungs, vec![Some(Rung::Indent)]);
}

#[test]
fn non_uniform_indentation_is_not_the_indent_rung() {
    let file = "a\n  b\n    c\n";
    // Uniform shift would need +2 on every line; here one line differs by 4.
    let h = hunk(" a\n b\n-c\n+C");
    let out = apply_hunks(file, &[h], None);
    assert_ne!(out.hunks[0].rung, Some(Rung::Indent));
}

#[test]
fn canonical_folds_typographic_unicode() {
    let file = "let s = \"it's\";\nlet t = 1 - 2;\nend();\n";
    let h =
        hunk(" let s = \u{201c}it\u{2019}s\u{201d};\n let t = 1 \u{2013} 2;\n-end();\n+finish();");
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(text, "let s = \"it's\";\nlet t = 1 - 2;\nfinish();\n");
    assert_eq!(rungs, vec![Some(Rung::Canonical)]);
}

#[test]
fn nbsp_and_zero_width_characters_fold() {
    let file = "a b\nx\n";
    let h = hunk(" a\u{a0}b\u{200b}\n-x\n+y");
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(text, "a b\ny\n");
    assert_eq!(rungs, vec![Some(Rung::Canonical)]);
}

#[test]
fn missing_and_extra_blank_lines() {
    let file = "one\n\ntwo\nthree\n\n\nfour\n";
    // The hunk forgot the blank after "one" and has only one of the two before "four".
    let h = hunk(" one\n two\n-three\n+THREE\n \n four");
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(text, "one\n\ntwo\nTHREE\n\n\nfour\n");
    assert_eq!(rungs, vec![Some(Rung::BlankLines)]);
}

#[test]
fn elision_marker_covers_the_skipped_lines() {
    let file = "fn a() {\n    one();\n    two();\n    three();\n    four();\n}\n";
    let h = hunk(" fn a() {\n     // ... existing code ...\n-    four();\n+    FOUR();\n }");
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(text, file.replace("four()", "FOUR()"));
    assert_eq!(rungs, vec![Some(Rung::Elision)]);
}

#[test]
fn elision_pieces_must_chain_uniquely() {
    let file = "start\nx\nend\nmid\nend\n";
    let h = hunk(" start\n ...\n-end\n+END");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::Ambiguous);
    assert!(out.new_text.is_none());
}

#[test]
fn moved_elided_code_comes_along() {
    // SEARCH/REPLACE that moves a function whose body it elides.
    let file = "fn a() {\n    body_a();\n}\n\nfn b() {\n    body_b1();\n    body_b2();\n}\n";
    let h = hunk(
        "+fn b() {\n+    ...\n+}\n+\n fn a() {\n     body_a();\n }\n-\n-fn b() {\n-    ...\n-}",
    );
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(
        text,
        "fn b() {\n    body_b1();\n    body_b2();\n}\n\nfn a() {\n    body_a();\n}\n"
    );
    assert_eq!(rungs, vec![Some(Rung::Elision)]);
}

#[test]
fn context_relax_drops_a_wrong_outer_line() {
    let file = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n";
    // First and last context lines are wrong (the model misremembered them).
    let h = hunk(" ALPHA?\n beta\n gamma\n-delta\n+DELTA\n epsilon\n zeta\n ETA?");
    let (text, rungs) = applied(file, &[h]);
    assert_eq!(text, "alpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\n");
    assert_eq!(rungs, vec![Some(Rung::ContextRelax)]);
}

#[test]
fn context_relax_never_drops_removed_lines() {
    let file = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n";
    let h = hunk(" alpha\n beta\n gamma\n-DELTA?\n+x\n epsilon\n zeta\n eta");
    let out = apply_hunks(file, &[h], None);
    assert_ne!(out.hunks[0].rung, Some(Rung::ContextRelax));
}

#[test]
fn similar_accepts_a_clear_winner() {
    let file = "fn compute(total: u32) -> u32 {\n    let doubled = total * 2;\n    let tripled = total * 3;\n    doubled + tripled\n}\n";
    // One context line misremembered beyond what the other rungs forgive.
    let h = hunk(" fn compute(total: u32) -> u32 {\n     let doubled = total * 2;\n-    let tripled = total * 3;\n+    let tripled = total * 4;\n     doubled + tripled + 0\n }");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.hunks[0].rung, Some(Rung::Similar), "{:#?}", out.hunks);
    assert!(out.hunks[0].similarity.unwrap_or(0.0) >= 0.8);
    assert!(out.hunks[0].margin.is_some());
    assert_eq!(
        out.new_text.as_deref(),
        Some(file.replace("total * 3", "total * 4").as_str())
    );
}

#[test]
fn near_twins_are_refused_with_candidates() {
    let file = "fn alpha_loader() {\n    let v = load(1);\n    use_it(v);\n}\nfn beta() {\n    let v = load(2);\n    use_it(v);\n}\n";
    let h = hunk(" fn alpha_loader() {\n     let v = load(3);\n-    use_it(v);\n+    drop(v);\n }");
    let out = apply_hunks(file, std::slice::from_ref(&h), None);
    // The function line is distinctive, so this is a clear winner...
    assert_eq!(out.status, Status::Applied);
    // ...but without the distinguishing line both copies fit equally well.
    let h2 = hunk("     let v = load(3);\n-    use_it(v);\n+    drop(v);\n }");
    let out = apply_hunks(file, &[h2], None);
    assert_eq!(out.status, Status::NotFound);
    assert!(out.hunks[0].candidates.len() >= 2);
    assert!(
        out.hunks[0].candidates[0].diff.contains("[-3-]{+1+}")
            || out.hunks[0].candidates[0].diff.contains("[-3-]{+2+}")
    );
    assert!(out.hunks[0]
        .message
        .as_deref()
        .unwrap_or("")
        .contains("closest"));
}

#[test]
fn similar_never_rewrites_a_line_the_model_did_not_see() {
    // The edit removes `y = 3`; the file has `y = 2`. Close (0.9 overall, nothing else to
    // compete), but a careful user would never let it replace `y = 2`.
    let h = hunk(" x = 1\n-y = 3\n+y = 4");
    let out = apply_hunks("x = 1\ny = 2\n", std::slice::from_ref(&h), None);
    assert_eq!(out.status, Status::NotFound, "{:#?}", out.hunks);
    assert!(out.new_text.is_none());
    let c = &out.hunks[0].candidates;
    assert!(!c.is_empty(), "the closest place is shown");
    assert_eq!((c[0].lines.start, c[0].lines.end), (1, 2));
    assert!(c[0].diff.contains("[-3-]{+2+}"), "{}", c[0].diff);
    // Even in a long hunk that otherwise matches well.
    let file = "fn load(path: &str) -> Config {\n    let text = read(path);\n    let mut cfg = parse(&text);\n    cfg.retries = 2;\n    cfg.validate();\n    cfg\n}\n";
    let h = hunk(" fn load(path: &str) -> Config {\n     let text = read(path);\n     let mut cfg = parse(&text);\n-    cfg.retries = 3;\n+    cfg.retries = 5;\n     cfg.validate();\n     cfg\n }");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::NotFound, "{:#?}", out.hunks);
}

#[test]
fn similar_places_a_drifted_context_line_in_a_long_hunk() {
    let file = "import os\nimport sys\n\n\ndef main(argv):\n    root = os.getcwd()\n    name = argv[1]\n    path = os.path.join(root, name)\n    data = open(path).read()\n    print(len(data))\n    return 0\n";
    // Ten lines; one context line has a changed word (`cwd` for `getcwd`).
    let h = hunk(" import sys\n \n \n def main(argv):\n     root = os.cwd()\n     name = argv[1]\n     path = os.path.join(root, name)\n-    data = open(path).read()\n+    data = open(path, encoding=\"utf-8\").read()\n     print(len(data))\n     return 0");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(out.hunks[0].rung, Some(Rung::Similar));
    assert!(out.hunks[0].margin.unwrap_or(0.0) >= 0.1);
    assert_eq!(
        out.new_text.as_deref(),
        Some(
            file.replace("open(path)", "open(path, encoding=\"utf-8\")")
                .as_str()
        )
    );
}

#[test]
fn a_hunk_running_past_the_end_of_the_file_is_refused_not_a_crash() {
    // Blank trailing context the file does not have: the closest window is short.
    let h = hunk(" )\n def hello():\n-return \"hello\"\n+return \"hi\"\n ");
    let out = apply_hunks("}\ndef hello():\nreturn \"hello\"\n", &[h], None);
    assert!(!out.status.is_success() || out.hunks[0].rung != Some(Rung::Similar));
}

#[test]
fn duplicates_without_evidence_are_ambiguous() {
    let file = "a\nx\nb\n--\na\nx\nb\n";
    let out = apply_hunks(file, &[hunk(" a\n-x\n+y\n b")], None);
    assert_eq!(out.status, Status::Ambiguous);
    assert_eq!(out.hunks[0].candidates.len(), 2);
    assert_eq!(out.hunks[0].candidates[0].lines.start, 1);
    assert_eq!(out.hunks[0].candidates[1].lines.start, 5);
    assert!(out.new_text.is_none());
}

#[test]
fn a_hint_consistent_with_the_other_hunks_picks_the_duplicate() {
    let file = "head\na\nx\nb\n--\na\nx\nb\ntail\n";
    // The unique hunk was found 2 lines below its hint; the same offset picks the second copy.
    let tail = with_start(hunk(" b\n-tail\n+TAIL"), 6);
    let dup = with_start(hunk(" a\n-x\n+y\n b"), 4);
    let (text, _) = applied(file, &[tail, dup]);
    assert_eq!(text, "head\na\nx\nb\n--\na\ny\nb\nTAIL\n");
    // A hint that fits no known offset decides nothing.
    let tail = with_start(hunk(" b\n-tail\n+TAIL"), 6);
    let dup = with_start(hunk(" a\n-x\n+y\n b"), 3);
    assert_eq!(
        apply_hunks(file, &[tail, dup], None).status,
        Status::Ambiguous
    );
}

#[test]
fn a_scope_line_picks_the_duplicate() {
    let file = "impl A {\n    fn run() {\n        go();\n    }\n}\nimpl B {\n    fn run() {\n        go();\n    }\n}\n";
    let mut h = hunk("-        go();\n+        stop();");
    h.scopes = vec!["impl B {".into(), "fn run() {".into()];
    let (text, _) = applied(file, &[h]);
    assert_eq!(text, "impl A {\n    fn run() {\n        go();\n    }\n}\nimpl B {\n    fn run() {\n        stop();\n    }\n}\n");
}

#[test]
fn already_applied_writes_nothing() {
    let file = CODE.replace("b = 2", "b = 3");
    let h =
        hunk("     let a = 1;\n-    let b = 2;\n+    let b = 3;\n     println!(\"{}\", a + b);");
    let out = apply_hunks(&file, &[h], None);
    assert_eq!(out.status, Status::AlreadyApplied);
    assert_eq!(out.hunks[0].status, Status::AlreadyApplied);
    assert!(out.new_text.is_none());
}

#[test]
fn an_append_already_there_is_not_appended_twice() {
    // The pre-image is still in the file, but only inside the post-image.
    let file = "a\nb\nc\nNEW\n";
    let h = hunk(" a\n b\n c\n+NEW");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::AlreadyApplied);
}

#[test]
fn crlf_files_stay_crlf() {
    let file = "a\r\nb\r\nc\r\n";
    let (text, _) = applied(file, &[hunk(" a\n-b\n+B\n+B2\n c")]);
    assert_eq!(text, "a\r\nB\r\nB2\r\nc\r\n");
}

#[test]
fn each_line_keeps_its_own_ending() {
    let file = "a\r\nb\nc\r\nd\r\n";
    let (text, _) = applied(file, &[hunk(" a\n b\n-c\n+C\n d")]);
    assert_eq!(text, "a\r\nb\nC\r\nd\r\n");
}

#[test]
fn bom_is_kept() {
    let file = "\u{feff}a\nb\n";
    let (text, _) = applied(file, &[hunk(" a\n-b\n+c")]);
    assert_eq!(text, "\u{feff}a\nc\n");
}

#[test]
fn missing_final_newline_is_kept() {
    let file = "a\nb\nc";
    let (text, _) = applied(file, &[hunk(" b\n-c\n+C\n+D")]);
    assert_eq!(text, "a\nb\nC\nD");
    let (text, _) = applied(file, &[hunk(" b\n c\n+D")]);
    assert_eq!(text, "a\nb\nc\nD");
    let (text, _) = applied("a\nb\n", &[hunk(" a\n-b")]);
    assert_eq!(text, "a\n");
}

#[test]
fn an_explicit_final_newline_change_is_honoured() {
    let mut h = hunk(" a\n-b\n+b");
    h.old_no_newline = true;
    let (text, _) = applied("a\nb", &[h]);
    assert_eq!(text, "a\nb\n");
    let mut h = hunk(" a\n-b\n+b");
    h.new_no_newline = true;
    let (text, _) = applied("a\nb\n", &[h]);
    assert_eq!(text, "a\nb");
}

#[test]
fn reordered_hunks_apply_the_same() {
    let file = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
    let h1 = hunk(" 1\n-2\n+two\n 3");
    let h2 = hunk(" 9\n-10\n+ten\n 11");
    let (a, _) = applied(file, &[h1.clone(), h2.clone()]);
    let (b, _) = applied(file, &[h2, h1]);
    assert_eq!(a, b);
    assert_eq!(a, "1\ntwo\n3\n4\n5\n6\n7\n8\n9\nten\n11\n12\n");
}

#[test]
fn overlapping_hunks_are_refused() {
    let file = "1\n2\n3\n4\n5\n";
    let h1 = hunk(" 1\n-2\n+two\n 3");
    let h2 = hunk(" 1\n-2\n+deux\n 3");
    let out = apply_hunks(file, &[h1, h2], None);
    assert_eq!(out.status, Status::Conflict);
    assert!(out.new_text.is_none());
    assert_eq!(out.hunks[0].status, Status::Skipped);
    assert_eq!(out.hunks[1].status, Status::Conflict);
}

#[test]
fn hunks_sharing_only_context_both_apply() {
    let file = "1\n2\n3\n4\n5\n";
    let h1 = hunk(" 1\n-2\n+two\n 3\n 4");
    let h2 = hunk(" 3\n 4\n-5\n+five");
    let (text, _) = applied(file, &[h1, h2]);
    assert_eq!(text, "1\ntwo\n3\n4\nfive\n");
}

#[test]
fn maybe_added_lines_are_tried_as_added_when_context_fails() {
    let file = "fn f() {\n    a();\n}\n";
    let mut h = hunk(" fn f() {\n     a();\n+    b();\n     c();\n+    d();\n }");
    h.maybe_added = vec![3];
    let (text, rungs) = applied(file, &[h]);
    // The line's text was " " + "    c();" without its "+"; taken as added it keeps that text.
    assert_eq!(
        text,
        "fn f() {\n    a();\n    b();\n     c();\n    d();\n}\n"
    );
    assert_eq!(rungs, vec![Some(Rung::Exact)]);
    // As context it is preferred when it does match.
    let file = "fn f() {\n    a();\n     c();\n}\n";
    let mut h = hunk(" fn f() {\n     a();\n      c();\n+    d();\n }");
    h.maybe_added = vec![2];
    let (text, _) = applied(file, &[h]);
    assert_eq!(text, "fn f() {\n    a();\n     c();\n    d();\n}\n");
}

#[test]
fn pure_insertions_need_an_anchor_scope_or_consistent_hint() {
    let file = "a\nb\n";
    let h = hunk("+z");
    assert_eq!(
        apply_hunks(file, std::slice::from_ref(&h), None).status,
        Status::NotFound
    );
    let mut end = h.clone();
    end.anchor = Anchor::End;
    assert_eq!(applied(file, &[end]).0, "a\nb\nz\n");
    let mut start = h.clone();
    start.anchor = Anchor::Start;
    assert_eq!(applied(file, &[start]).0, "z\na\nb\n");
    let mut scoped = h.clone();
    scoped.scopes = vec!["a".into()];
    assert_eq!(applied(file, &[scoped]).0, "a\nz\nb\n");
    // A hint alone is not evidence; with another hunk's offset it is.
    let hinted = with_start(h.clone(), 1);
    assert_eq!(
        apply_hunks(file, std::slice::from_ref(&hinted), None).status,
        Status::NotFound
    );
    let other = with_start(hunk(" a\n-b\n+B"), 1);
    assert_eq!(applied(file, &[other, hinted]).0, "a\nz\nB\n");
}

#[test]
fn a_lazy_placeholder_in_added_lines_is_refused() {
    let file = "fn f() {\n    a();\n    b();\n}\n";
    let h = hunk(" fn f() {\n-    a();\n-    b();\n+    // ... existing code ...\n+    c();\n }");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::Malformed);
    assert!(out.new_text.is_none());
}

#[test]
fn counts_are_reported() {
    let out = apply_hunks("a\nb\nc\n", &[hunk(" a\n-b\n+x\n+y\n c")], None);
    assert_eq!((out.added, out.removed), (2, 1));
}

#[test]
fn no_final_newline_kept_when_the_last_hunk_says_so_on_both_sides() {
    let mut h = hunk(" a\n-b\n+c\n+d");
    h.old_no_newline = true;
    h.new_no_newline = true;
    let (text, _) = applied("x\na\nb", &[h]);
    assert_eq!(text, "x\na\nc\nd");
}

#[test]
fn an_anchored_insertion_already_in_place_is_not_inserted_again() {
    let mut start = hunk("+#!/bin/sh\n+set -e");
    start.anchor = Anchor::Start;
    let (once, _) = applied("echo hi\n", std::slice::from_ref(&start));
    assert_eq!(once, "#!/bin/sh\nset -e\necho hi\n");
    let again = apply_hunks(&once, std::slice::from_ref(&start), None);
    assert_eq!(again.status, Status::AlreadyApplied, "{:#?}", again.hunks);
    assert_eq!(again.new_text, None);
    assert_eq!(again.hunks[0].status, Status::AlreadyApplied);

    let mut end = hunk("+}\n+// end");
    end.anchor = Anchor::End;
    let (once, _) = applied("fn f() {\r\n", std::slice::from_ref(&end));
    assert_eq!(once, "fn f() {\r\n}\r\n// end\r\n");
    let again = apply_hunks(&once, std::slice::from_ref(&end), None);
    assert_eq!(again.status, Status::AlreadyApplied, "{:#?}", again.hunks);
    assert_eq!(again.new_text, None);

    // Only exactly those lines at exactly that end count: the same lines elsewhere, or the
    // file's start holding only part of them, still get the insertion.
    assert_eq!(
        applied("x\n#!/bin/sh\nset -e\n", std::slice::from_ref(&start)).0,
        "#!/bin/sh\nset -e\nx\n#!/bin/sh\nset -e\n"
    );
    assert_eq!(
        applied("#!/bin/sh\n", std::slice::from_ref(&start)).0,
        "#!/bin/sh\nset -e\n#!/bin/sh\n"
    );
    assert_eq!(
        applied("}\n// end\nx\n", std::slice::from_ref(&end)).0,
        "}\n// end\nx\n}\n// end\n"
    );
    // Blank lines prove nothing.
    let mut blank = hunk("+");
    blank.anchor = Anchor::End;
    assert_eq!(applied("a\n\n", &[blank]).0, "a\n\n\n");
}

#[test]
fn a_blank_removed_over_two_file_blanks_is_not_given_the_spaces_of_one() {
    // The quote stripped the trailing spaces of the file's `  ` line; the hunk removes a blank
    // matched to `` and one matched to `  `, and adds a blank back: which file text it stands
    // for is open, so it is written as sent, and `  ` comes back only as the reply wrote it.
    let file = "# t\n\n<div a>\n  \n[x]\n";
    let h = hunk(" # t\n-\n-<div a>\n-\n+\n+<div b>\n+  \n [x]");
    let (got, rungs) = applied(file, &[h]);
    assert_eq!(rungs, [Some(Rung::TrailingWs)]);
    assert_eq!(got, "# t\n\n<div b>\n  \n[x]\n");
}

#[test]
fn new_text_standing_beside_the_old_lines_it_replaces_is_not_already_applied() {
    // The method stands twice, new version first; the edit replaces old with new and drops
    // the copy. Its result stands at the top, but the old lines it removes are still there.
    let file = "    def load(self):\n        return self.cache.get(self.key)\n\n    def save(self):\n        self.store.put(self.key)\n\n    def load(self):\n        return self.store.get(self.key)\n";
    let x = salve_patch::extract(&format!(
        "app.py\n```python\n<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n```\n",
        "    def load(self):\n        return self.store.get(self.key)\n\n    def save(self):\n        self.store.put(self.key)\n\n    def load(self):\n        return self.cache.get(self.key)\n",
        "    def load(self):\n        return self.cache.get(self.key)\n\n    def save(self):\n        self.store.put(self.key)\n",
    ));
    let salve_patch::FileChange::Modify { hunks } = &x.edits[0].change else {
        panic!("{x:?}")
    };
    let out = apply_hunks(file, hunks, None);
    assert_ne!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert!(!out.status.is_success(), "{:#?}", out.hunks);
    // The one-line shape of the same class.
    let h = hunk("+new\n-old\n B\n-new");
    let out = apply_hunks("new\nB\nold\n", std::slice::from_ref(&h), None);
    assert!(!out.status.is_success(), "{:#?}", out.hunks);
    // A retried edit whose removed lines are gone is still already applied.
    let out = apply_hunks("new\nB\nC\n", &[h], None);
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
}

#[test]
fn a_one_line_quote_with_a_typo_is_refused_with_the_nearest_line_as_candidate() {
    let file =
        "def main():\n    value = compute_total(items)\n    print(value)\n    return value\n";
    let h = hunk("-    value = compute_totl(items)\n+    value = compute_sum(items)");
    let out = apply_hunks(file, &[h], None);
    // Shown, never placed: one line with a typo is no evidence of place.
    assert_eq!(out.status, Status::NotFound);
    assert!(out.new_text.is_none());
    let cands = &out.hunks[0].candidates;
    assert_eq!(cands.len(), 1, "{cands:#?}");
    assert_eq!((cands[0].lines.start, cands[0].lines.end), (2, 2));
    assert!(
        cands[0].diff.contains("compute_tot{+a+}l"),
        "{}",
        cands[0].diff
    );
    // A line that is like nothing in the file has no candidate worth showing.
    let h = hunk("-zzzz qqqq\n+x");
    let out = apply_hunks(file, &[h], None);
    assert_eq!(out.status, Status::NotFound);
    assert!(out.hunks[0].candidates.is_empty());
}
