//! The library entry point, as an embedding program uses it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use salve_engine::apply::{apply, Error, Options};
use salve_engine::{Classified as _, Kind};
use salve_patch::{Outcome, Status};

mod support;
use support::repo;

const REPLY: &str = "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn one() -> u32 {\n-    1\n+    2\n }\n```\n";

#[test]
fn outcome_lists_written_files_and_the_baseline() {
    let dir = repo();
    let mut options = Options::new(dir.path());
    options.checkpoint = false;
    let out = apply(REPLY, &options).unwrap();
    assert_eq!(out.report.outcome, Outcome::Applied);
    assert_eq!(out.report.files[0].status, Status::Applied);
    assert_eq!(out.written, vec![PathBuf::from("src/lib.rs")]);
    assert_eq!(out.baseline.as_deref().map(str::len), Some(40));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        "pub fn one() -> u32 {\n    2\n}\n"
    );
}

#[test]
fn check_reports_without_writing() {
    let dir = repo();
    let mut options = Options::new(dir.path());
    options.check = true;
    let out = apply(REPLY, &options).unwrap();
    assert_eq!(out.report.outcome, Outcome::Applied);
    assert!(out.report.check_only);
    assert!(out.written.is_empty());
    assert!(std::fs::read_to_string(dir.path().join("src/lib.rs"))
        .unwrap()
        .contains("    1\n"));
}

#[test]
fn errors_are_typed() {
    let dir = repo();
    let mut options = Options::new(dir.path());
    options.base = Some("no-such-commit".into());
    let err = apply(REPLY, &options).unwrap_err();
    assert_eq!(err.kind(), Kind::User, "{err}");
    assert_eq!(err.code(), "unknown_revision");
    // Hints speak of the work, not of a front end's flags.
    let hint = err.hint().unwrap();
    assert!(!hint.contains("--"), "{hint}");

    let err = apply(REPLY, &Options::new(dir.path().join("missing"))).unwrap_err();
    assert!(matches!(err, Error::Dir { .. }), "{err}");
}
