//! The 3-way rung, whole-file replacement and new-file rendering.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{
    apply_hunks, create_text, replace_whole, replace_whole_3way, Hunk, HunkLine, LineKind, Rung,
    Status,
};

fn hunk(body: &str) -> Hunk {
    Hunk {
        lines: body
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
            .collect(),
        ..Hunk::default()
    }
}

/// Distinct lines, so only exact evidence places anything.
fn numbered(n: usize) -> String {
    const WORDS: [&str; 10] = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    ];
    (1..=n)
        .map(|i| format!("line {i} {}\n", WORDS[(i * 7) % 10].repeat(i % 3 + 1)))
        .collect()
}

fn l(i: usize) -> String {
    numbered(i).lines().last().unwrap_or_default().to_string()
}

/// Changes line 6 with three lines of context on each side.
fn six_hunk() -> Hunk {
    hunk(&format!(
        " {}\n {}\n {}\n-{}\n+line six\n {}\n {}\n {}",
        l(3),
        l(4),
        l(5),
        l(6),
        l(7),
        l(8),
        l(9)
    ))
}

#[test]
fn three_way_places_on_the_baseline_and_merges() {
    let base = numbered(10);
    // Since the model read the file, someone changed a line inside the hunk's context.
    let current = base.replace(&l(4), "line four");
    let h = six_hunk();
    // Without the baseline only the similar rung could place it; with it, the exact evidence of
    // the 3-way rung comes first.
    let plain = apply_hunks(&current, std::slice::from_ref(&h), None);
    assert_ne!(plain.hunks[0].rung, Some(Rung::ThreeWay));
    let out = apply_hunks(&current, &[h], Some(&base));
    assert_eq!(out.status, Status::Applied, "{:#?}", out.hunks);
    assert_eq!(out.hunks[0].rung, Some(Rung::ThreeWay));
    assert_eq!(
        out.new_text.as_deref(),
        Some(current.replace(&l(6), "line six").as_str())
    );
}

#[test]
fn three_way_conflict_is_a_refusal_naming_lines() {
    let base = numbered(10);
    let current = base.replace(&l(4), "line four").replace(&l(6), "line SIX");
    let h = six_hunk();
    let out = apply_hunks(&current, &[h], Some(&base));
    assert_eq!(out.status, Status::Conflict);
    assert!(out.new_text.is_none());
    let r = out.hunks[0].lines.expect("conflict lines");
    assert!(r.start <= 6 && r.end >= 6, "{r:?}");
    assert!(out.hunks[0]
        .message
        .as_deref()
        .unwrap_or("")
        .contains("lines"));
}

#[test]
fn three_way_recognises_an_edit_already_merged() {
    let base = numbered(10);
    let current = base.replace(&l(4), "line four").replace(&l(6), "line six");
    let h = six_hunk();
    let out = apply_hunks(&current, &[h], Some(&base));
    assert_eq!(out.status, Status::AlreadyApplied, "{:#?}", out.hunks);
    assert!(out.new_text.is_none());
}

#[test]
fn whole_file_keeps_crlf_bom_and_final_newline_state() {
    let current = "\u{feff}a\r\nb\r\nc";
    let out = replace_whole("f.txt", current, "a\nB\nc\nd\n", true);
    assert_eq!(out.status, Status::Applied);
    assert_eq!(out.new_text.as_deref(), Some("\u{feff}a\r\nB\r\nc\r\nd"));
    assert_eq!((out.added, out.removed), (3, 2));
}

#[test]
fn whole_file_equal_after_normalisation_is_already_applied() {
    let out = replace_whole("f.txt", "a\r\nb\r\n", "a\nb\n", true);
    assert_eq!(out.status, Status::AlreadyApplied);
    assert!(out.new_text.is_none());
}

#[test]
fn whole_file_placeholders_are_filled_from_the_file() {
    let current = "[package]\nname = \"x\"\nversion = \"1\"\nedition = \"2018\"\n\n[dependencies]\nfoo = \"1\"\n";
    let content =
        "[package]\n# ...\nversion = \"1\"\nedition = \"2021\"\n\n[dependencies]\nfoo = \"1\"\n";
    let out = replace_whole("Cargo.toml", current, content, true);
    assert_eq!(
        out.new_text.as_deref(),
        Some("[package]\nname = \"x\"\nversion = \"1\"\nedition = \"2021\"\n\n[dependencies]\nfoo = \"1\"\n")
    );
    assert!(out.hunks[0]
        .message
        .as_deref()
        .is_some_and(|m| m.contains("1 placeholder line(s) filled in")));
    // A placeholder whose neighbours fit several places is refused, never guessed.
    let out = replace_whole("f.txt", "a\nx\nb\na\ny\nb\n", "a\n...\nb\n", true);
    assert_eq!(out.status, Status::Ambiguous);
    assert!(out.new_text.is_none());
}

#[test]
fn whole_file_with_a_stale_baseline_merges() {
    let base = numbered(8);
    let current = base.replace(&l(2), "line two");
    let content = base.replace(&l(7), "line seven");
    let out = replace_whole_3way("f.txt", &current, &content, true, Some(&base));
    assert_eq!(out.status, Status::Applied);
    assert_eq!(
        out.new_text.as_deref(),
        Some(current.replace(&l(7), "line seven").as_str())
    );
    // Without the baseline the whole-file content would undo the other change.
    let plain = replace_whole("f.txt", &current, &content, true);
    assert_eq!(plain.new_text.as_deref(), Some(content.as_str()));
}

#[test]
fn create_text_follows_final_newline() {
    assert_eq!(create_text("a\nb", true), "a\nb\n");
    assert_eq!(create_text("a\nb\n", true), "a\nb\n");
    assert_eq!(create_text("a\nb\n", false), "a\nb");
    assert_eq!(create_text("", true), "");
}
