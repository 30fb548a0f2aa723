//! Excerpts around a failure for the repair prompt: bounded, numbered, marked, and never from
//! outside the check's directory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_engine::fix::failures::{excerpt, Failure, FailureKind, Tool};

fn failure(file: &str, line: Option<u32>, column: Option<u32>) -> Failure {
    let mut f = Failure::new(Tool::Cargo, FailureKind::Type, "mismatched types");
    f.file = Some(file.to_owned());
    f.line = line;
    f.column = column;
    f
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let body: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("src/lib.rs"), body).unwrap();
    dir
}

#[test]
fn the_failing_line_is_marked_with_its_column() {
    let dir = project();
    let got = excerpt(dir.path(), &failure("src/lib.rs", Some(10), Some(6)), 2).unwrap();
    assert_eq!(
        got,
        "   8 | line 8\n   9 | line 9\n> 10 | line 10\n     |      ^\n  11 | line 11\n  12 | line 12\n"
    );
}

#[test]
fn the_start_and_end_of_the_file_bound_the_excerpt() {
    let dir = project();
    let got = excerpt(dir.path(), &failure("src/lib.rs", Some(1), None), 1).unwrap();
    assert_eq!(got, "> 1 | line 1\n  2 | line 2\n");
    let got = excerpt(dir.path(), &failure("src/lib.rs", None, None), 1).unwrap();
    assert_eq!(got, "  1 | line 1\n  2 | line 2\n");
    let past_the_end = excerpt(dir.path(), &failure("src/lib.rs", Some(99), None), 0).unwrap();
    assert_eq!(past_the_end, "> 12 | line 12\n");
}

#[test]
fn lines_around_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=500).map(|i| format!("{i}\n")).collect();
    std::fs::write(dir.path().join("big.txt"), body).unwrap();
    let got = excerpt(dir.path(), &failure("big.txt", Some(250), None), 10_000).unwrap();
    assert_eq!(got.lines().count(), 101);
}

#[test]
fn files_outside_the_directory_or_missing_give_nothing() {
    let dir = project();
    let inner = dir.path().join("src");
    assert_eq!(
        excerpt(&inner, &failure("../src/lib.rs", Some(1), None), 2).map(|_| ()),
        Some(())
    );
    let outside = tempfile::NamedTempFile::new().unwrap();
    let abs = outside.path().display().to_string();
    assert_eq!(excerpt(dir.path(), &failure(&abs, Some(1), None), 2), None);
    assert_eq!(
        excerpt(dir.path(), &failure("../../etc/passwd", Some(1), None), 2),
        None
    );
    assert_eq!(
        excerpt(dir.path(), &failure("nope.rs", Some(1), None), 2),
        None
    );
    let mut none = failure("x", None, None);
    none.file = None;
    assert_eq!(excerpt(dir.path(), &none, 2), None);
}
