#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

/// A file of `n` distinct numbered lines.
fn numbered(n: usize) -> String {
    (1..=n).map(|k| format!("line {k} = {k}\n")).collect()
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

#[test]
fn the_files_beginning_with_the_rest_missing_is_truncated() {
    let src = numbered(100);
    let doc = Doc::parse(&src);
    // The first 40 lines, one of them edited.
    let mut head = lines(&src)[..40].to_vec();
    head[3] = "line 4 = four".into();
    let e = check(&doc, head.clone(), false, false).unwrap_err();
    assert_eq!(e.status, Status::Truncated, "{e:?}");
    assert!(
        e.message.contains("leaves out 60 line(s) after them"),
        "{e:?}"
    );
    // Its end and a middle part alike.
    let tail = lines(&src)[70..].to_vec();
    let e = check(&doc, tail, false, false).unwrap_err();
    assert!(e.message.contains("before them"), "{e:?}");
    let middle = lines(&src)[30..60].to_vec();
    let e = check(&doc, middle, false, false).unwrap_err();
    assert!(e.message.contains("around them"), "{e:?}");
}

#[test]
fn a_sentence_saying_the_rest_is_unchanged_fills_it_in() {
    let src = numbered(100);
    let doc = Doc::parse(&src);
    let mut head = lines(&src)[..40].to_vec();
    head[3] = "line 4 = four".into();
    let out = check(&doc, head, true, false).unwrap();
    let mut want = lines(&src);
    want[3] = "line 4 = four".into();
    assert_eq!(out, want);
    // Nothing changed in what is shown: no change to fill in; judged as it stands, a cut.
    let e = check(&doc, lines(&src)[..40].to_vec(), true, false).unwrap_err();
    assert_eq!(e.status, Status::Truncated, "{e:?}");
    // The beginning missing too: not filled.
    assert!(check(&doc, lines(&src)[10..40].to_vec(), true, false).is_err());
    // Mostly new text beside such a sentence: no head to place, a rewrite as it stands.
    let fresh: Vec<String> = (0..5).map(|k| format!("fresh {k}")).collect();
    assert!(check(&doc, fresh, true, false).is_ok());
    // A rewrite that deletes the file's last lines, beside the sentence models write after
    // complete files too: its rest cannot be placed, and it loses too little to be a cut.
    let mut short = lines(&src)[..96].to_vec();
    short[95] = "line 96 = last".into();
    assert_eq!(check(&doc, short.clone(), true, false).unwrap(), short);
    // A whole file beside such a sentence is written as it is.
    let mut all = lines(&src);
    all[0] = "line 1 = one".into();
    assert_eq!(check(&doc, all.clone(), true, false).unwrap(), all);
}

#[test]
fn a_last_line_of_dots_after_a_stretch_is_a_cut_even_where_dots_are_code() {
    let src = "import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n";
    let doc = Doc::parse(src);
    let e = check(
        &doc,
        lines("import os\n\ndef a():\n    return 1\n...\n"),
        false,
        false,
    )
    .unwrap_err();
    assert!(e.message.contains("`...`"), "{e:?}");
    // A stub whose body is `...`, added at the end of a whole file, is code.
    let stub = format!("{src}\ndef c():\n    ...\n");
    assert!(check(&doc, lines(&stub), false, false).is_ok());
}

#[test]
fn rewrites_and_small_deletions_are_written() {
    let src = numbered(100);
    let doc = Doc::parse(&src);
    // Mostly new text: a rewrite, however much it drops.
    let mut rewrite: Vec<String> = (0..30).map(|k| format!("fresh {k}")).collect();
    rewrite.extend(lines(&src)[..10].iter().cloned());
    assert!(check(&doc, rewrite, false, false).is_ok());
    // A stale section of five lines deleted at the end.
    assert!(check(&doc, lines(&src)[..95].to_vec(), false, false).is_ok());
    // A tail rewritten with as many lines of its own.
    let mut tail = lines(&src)[..60].to_vec();
    tail.extend((0..30).map(|k| format!("new {k}")));
    assert!(check(&doc, tail, false, false).is_ok());
}

#[test]
fn an_indented_ellipsis_ending_a_stretch_that_drops_lines_is_a_cut() {
    let src =
        "class Q:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n";
    let doc = Doc::parse(src);
    // `b` replaced by a stub whose body is `...`: file lines are left out after it.
    let e = check(
        &doc,
        lines("class Q:\n    def a(self):\n        return 1\n\n    def c(self):\n        ...\n"),
        false,
        false,
    );
    assert!(e.is_err(), "{e:?}");
}

#[test]
fn content_with_placeholders_that_stops_before_the_files_end_is_a_cut_however_short() {
    let src = numbered(100);
    let doc = Doc::parse(&src);
    // What a whole file with a middle placeholder gives once it is filled in: every line up to
    // 95, one edited, the last five left out with no placeholder standing for them.
    let mut head = lines(&src)[..95].to_vec();
    head[40] = "line 41 = forty-one".into();
    let e = check(&doc, head.clone(), false, true).unwrap_err();
    assert_eq!(e.status, Status::Truncated, "{e:?}");
    assert!(
        e.message.contains("leaves out 5 line(s) after them"),
        "{e:?}"
    );
    assert!(e.message.contains("none stands for these"), "{e:?}");
    // Without placeholders the same content is a rewrite that deletes a small tail.
    assert_eq!(check(&doc, head, false, false).unwrap(), {
        let mut h = lines(&src)[..95].to_vec();
        h[40] = "line 41 = forty-one".into();
        h
    });
    // The beginning left out alike.
    let e = check(&doc, lines(&src)[3..].to_vec(), false, true).unwrap_err();
    assert!(e.message.contains("before them"), "{e:?}");
    // Filled in to the file's end, with a tail rewritten in as many lines: written.
    let mut whole = lines(&src);
    whole[40] = "line 41 = forty-one".into();
    assert_eq!(check(&doc, whole.clone(), false, true).unwrap(), whole);
    let mut rewritten = lines(&src)[..95].to_vec();
    rewritten.extend((0..5).map(|k| format!("new {k}")));
    assert!(check(&doc, rewritten, false, true).is_ok());
}
