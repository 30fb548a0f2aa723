//! Text replacements (old/new JSON, SEARCH/REPLACE) whose old text is not whole lines: read from
//! a reply with `parse::extract` and applied with `apply::apply_hunks`, as the engine does.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{apply_hunks, extract, FileChange, FileEdit, FileOutcome, Hunk, Rung, Status};

fn edit(reply: &str) -> FileEdit {
    let x = extract(reply);
    assert!(x.issues.is_empty(), "{:?}", x.issues);
    assert_eq!(x.edits.len(), 1, "{:?}", x.edits);
    x.edits.into_iter().next().unwrap()
}

fn hunks(e: &FileEdit) -> &[Hunk] {
    let FileChange::Modify { hunks } = &e.change else {
        panic!("{:?}", e.change)
    };
    hunks
}

fn json(old: &str, new: &str) -> String {
    serde_json::json!({"path": "a.py", "old_string": old, "new_string": new}).to_string()
}

fn run(file: &str, reply: &str) -> FileOutcome {
    apply_hunks(file, hunks(&edit(reply)), None)
}

fn applied(file: &str, reply: &str) -> String {
    let out = run(file, reply);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    out.new_text.expect("new text")
}

const PY: &str = "def f():\n    x = compute(1)  # note\n    return x\n";

#[test]
fn a_unique_mid_line_span_is_replaced_and_the_rest_of_the_line_kept() {
    let out = run(PY, &json("x = compute(1)", "x = compute(2)"));
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(
        out.new_text.as_deref(),
        Some("def f():\n    x = compute(2)  # note\n    return x\n")
    );
    assert_eq!(out.hunks[0].rung, Some(Rung::Substring));
    let lines = out.hunks[0].lines.unwrap();
    assert_eq!((lines.start, lines.end), (2, 2));
    assert_eq!((out.added, out.removed), (1, 1));
}

#[test]
fn applying_it_again_is_already_applied() {
    let once = applied(PY, &json("x = compute(1)", "x = compute(2)"));
    let again = run(&once, &json("x = compute(1)", "x = compute(2)"));
    assert_eq!(again.status, Status::AlreadyApplied, "{:#?}", again.hunks);
    assert_eq!(again.new_text, None);
}

#[test]
fn several_occurrences_are_refused_with_their_lines() {
    let file = "a = f(1)\nb = g(f(1))\n";
    let out = run(file, &json("f(1)", "f(2)"));
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
    let h = &out.hunks[0];
    let lines: Vec<(usize, usize)> = h
        .candidates
        .iter()
        .map(|c| (c.lines.start, c.lines.end))
        .collect();
    assert_eq!(lines, vec![(1, 1), (2, 2)]);
    assert!(
        h.message.as_deref().unwrap().contains("lines 1-1, 2-2"),
        "{:?}",
        h.message
    );
}

#[test]
fn a_multi_line_span_starting_mid_line() {
    let file = "def f():\n    return g(1,\n             2)\n\nprint(f())\n";
    let out = applied(file, &json("g(1,\n             2)", "g(1, 2, 3)"));
    assert_eq!(out, "def f():\n    return g(1, 2, 3)\n\nprint(f())\n");
    // Claude Code style: the first line of the old text without its indentation.
    let file = "class A:\n    def f(self):\n        return 1\n";
    let out = applied(
        file,
        &json(
            "def f(self):\n        return 1",
            "def g(self):\n        return 2",
        ),
    );
    assert_eq!(out, "class A:\n    def g(self):\n        return 2\n");
}

#[test]
fn line_endings_and_the_final_newline_state_are_the_files() {
    let file = "a = 1\r\nb = old(2)  # x\r\nc = 3";
    assert_eq!(
        applied(file, &json("old(2)", "new(2)")),
        "a = 1\r\nb = new(2)  # x\r\nc = 3"
    );
    assert_eq!(
        applied(file, &json("3", "[\n  3,\n]")),
        "a = 1\r\nb = old(2)  # x\r\nc = [\r\n  3,\r\n]"
    );
}

#[test]
fn search_replace_blocks_get_the_same_semantics() {
    let reply = "a.py\n```python\n<<<<<<< SEARCH\nx = compute(1)\n=======\nx = compute(3)\n>>>>>>> REPLACE\n```\n";
    let out = run(PY, reply);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(
        out.new_text.as_deref(),
        Some("def f():\n    x = compute(3)  # note\n    return x\n")
    );
}

#[test]
fn whole_lines_still_go_through_the_ladder() {
    // Exact whole lines: the exact rung.
    let file = "x = 1\ny = [z = 1]\n";
    let out = run(file, &json("x = 1", "x = 2"));
    assert_eq!(out.new_text.as_deref(), Some("x = 2\ny = [z = 1]\n"));
    assert_eq!(out.hunks[0].rung, Some(Rung::Exact));
    // A piece of text (no final newline) that is a whole line here and part of a longer line
    // there has two readings, as the agents' own tools count it: refused, both shown.
    let file = "x = 1\ny = [x = 1]\n";
    let out = run(file, &json("x = 1", "x = 2"));
    assert_eq!(out.new_text, None);
    assert_eq!(out.hunks[0].status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.hunks[0].candidates.len(), 2);
    // Whole lines (a final newline) are not read inside another line.
    let out = run(file, &json("x = 1\n", "x = 2\n"));
    assert_eq!(out.new_text.as_deref(), Some("x = 2\ny = [x = 1]\n"));
    // A whole line with drifted indentation: the indent rung re-indents every added line.
    let file = "def f():\n    a = 1\n";
    let out = run(file, &json("a = 1", "a = 1\nb = 2"));
    assert_eq!(
        out.new_text.as_deref(),
        Some("def f():\n    a = 1\n    b = 2\n")
    );
    assert_eq!(out.hunks[0].rung, Some(Rung::Indent));
    // Not a substring at all (a typographic quote): the looser rungs still place it.
    let file = "s = \u{201c}hi\u{201d}\nt = 2\n";
    let out = run(file, &json("s = \"hi\"\nt = 2", "s = \"hi\"\nt = 3"));
    assert_eq!(
        out.new_text.as_deref(),
        Some("s = \u{201c}hi\u{201d}\nt = 3\n")
    );
    assert_eq!(out.hunks[0].rung, Some(Rung::Canonical));
}

#[test]
fn text_found_nowhere_is_refused() {
    let out = run(PY, &json("y = compute(1)", "y = compute(2)"));
    assert_eq!(out.status, Status::NotFound, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
}

#[test]
fn reversing_undoes_a_substring_edit() {
    let e = edit(&json("x = compute(1)", "x = compute(2)"));
    let once = apply_hunks(PY, hunks(&e), None).new_text.unwrap();
    let back = e.reversed();
    let out = apply_hunks(&once, hunks(&back), None);
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(out.new_text.as_deref(), Some(PY));
    // Reversing what is not there is already done.
    let out = apply_hunks(PY, hunks(&back), None);
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
}

#[test]
fn two_spans_on_different_lines_apply_together() {
    let reply = format!(
        "[{}, {}]",
        json("compute(1)", "compute(5)"),
        json("return x", "return x + 1")
    );
    let e = edit(&reply);
    assert_eq!(hunks(&e).len(), 2);
    let out = apply_hunks(PY, hunks(&e), None);
    assert_eq!(
        out.new_text.as_deref(),
        Some("def f():\n    x = compute(5)  # note\n    return x + 1\n")
    );
}

#[test]
fn the_three_way_rung_finds_a_substring_on_the_baseline() {
    // The span is still in the current file: placed there directly.
    let base = "a = f(1)  # one\nb = 2\n";
    let current = "a = f(1)  # one, edited\nb = 2\n";
    let e = edit(&json("f(1)  # one", "f(9)  # one"));
    let out = apply_hunks(current, hunks(&e), Some(base));
    assert_eq!(
        out.new_text.as_deref(),
        Some("a = f(9)  # one, edited\nb = 2\n")
    );
    // Only the baseline has it: the line changed since the model read it, which is reported as
    // a conflict rather than as text that is nowhere.
    let current = "a = f(1)  # uno\nb = 2\n";
    let out = apply_hunks(current, hunks(&e), None);
    assert_eq!(out.status, Status::NotFound, "{:#?}", out.hunks);
    let out = apply_hunks(current, hunks(&e), Some(base));
    assert_eq!(out.status, Status::Conflict, "{:#?}", out.hunks);
    assert_eq!(out.hunks[0].rung, Some(Rung::ThreeWay));
    assert_eq!(out.new_text, None);
}

#[test]
fn a_substring_elsewhere_than_a_loose_whole_line_match_is_refused() {
    // `x = 1` is a whole line up to inner spacing (the canonical rung) and, byte for byte, part
    // of another line: two readings of the edit, so neither is taken.
    let file = "x  =  1\ny = [x = 1]\n";
    let out = run(file, &json("x = 1", "x = 2"));
    assert_eq!(out.status, Status::Ambiguous, "{:#?}", out.hunks);
    assert_eq!(out.new_text, None);
    let msg = out.hunks[0].message.as_deref().unwrap();
    assert!(msg.contains("at line 2"), "{msg}");
    assert!(msg.contains("lines 1-1"), "{msg}");
}

#[test]
fn trailing_whitespace_the_quote_stops_short_of_is_kept() {
    // The quote ends before the line's trailing space: the bytes are replaced, the space kept,
    // not the whole line rewritten without it.
    let file = "settings:\n    properties_nickname: \n    other: 1\n";
    let got = applied(
        file,
        &json("properties_nickname:", "properties_nickname_v2:"),
    );
    assert_eq!(
        got,
        "settings:\n    properties_nickname_v2: \n    other: 1\n"
    );
}
