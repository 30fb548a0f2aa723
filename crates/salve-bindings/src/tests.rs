// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

const REPLY: &str =
    "notes.txt\n```\n<<<<<<< SEARCH\nold line\n=======\nnew line\n>>>>>>> REPLACE\n```\n";

fn dir_with_notes() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "first\nold line\nlast\n").unwrap();
    dir
}

#[test]
fn check_reports_in_the_printed_form_and_writes_nothing() {
    let dir = dir_with_notes();
    let args = ApplyArgs {
        check: true,
        record: false,
        ..ApplyArgs::new(dir.path())
    };
    let applied = apply(&Edits::Reply(REPLY.to_owned()), &args).unwrap();
    let report: serde_json::Value = serde_json::from_str(&applied.report).unwrap();
    assert_eq!(report["outcome"], "applied");
    assert_eq!(report["check_only"], true);
    assert_eq!(report["files"][0]["path"], "notes.txt");
    let extra: serde_json::Value = serde_json::from_str(&applied.extra).unwrap();
    assert_eq!(extra["exit_code"], 0);
    assert_eq!(extra["written"], serde_json::json!([]));
    let text = std::fs::read_to_string(dir.path().join("notes.txt")).unwrap();
    assert_eq!(text, "first\nold line\nlast\n");
}

#[test]
fn a_refusal_is_a_report_with_exit_code_one() {
    let dir = dir_with_notes();
    let reply = REPLY.replace("old line", "a line the file does not have");
    let args = ApplyArgs {
        record: false,
        ..ApplyArgs::new(dir.path())
    };
    let applied = apply(&Edits::Reply(reply), &args).unwrap();
    let report: serde_json::Value = serde_json::from_str(&applied.report).unwrap();
    assert_eq!(report["outcome"], "refused");
    let extra: serde_json::Value = serde_json::from_str(&applied.extra).unwrap();
    assert_eq!(extra["exit_code"], 1);
}

#[test]
fn a_json_value_applies_like_a_tool_call() {
    let dir = dir_with_notes();
    let value = r#"{"path": "notes.txt", "old_string": "old line", "new_string": "new line"}"#;
    let args = ApplyArgs {
        record: false,
        checkpoint: false,
        ..ApplyArgs::new(dir.path())
    };
    let applied = apply(&Edits::Value(value.to_owned()), &args).unwrap();
    let extra: serde_json::Value = serde_json::from_str(&applied.extra).unwrap();
    assert_eq!(extra["written"], serde_json::json!(["notes.txt"]));
    let text = std::fs::read_to_string(dir.path().join("notes.txt")).unwrap();
    assert_eq!(text, "first\nnew line\nlast\n");
}

#[test]
fn bad_json_is_a_named_user_error() {
    let dir = dir_with_notes();
    let failure = apply(
        &Edits::Value("{not json".to_owned()),
        &ApplyArgs::new(dir.path()),
    )
    .unwrap_err();
    assert_eq!(
        (failure.kind.as_str(), failure.code.as_str()),
        ("user", "bad_json")
    );
    assert!(failure.hint.is_some());
}

#[test]
fn a_missing_directory_is_classified() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let failure = apply(&Edits::Reply(REPLY.to_owned()), &ApplyArgs::new(&missing)).unwrap_err();
    assert_eq!(failure.code, "bad_directory");
    assert_ne!(failure.kind, "internal");
}

#[test]
fn a_checkpoint_outside_a_repository_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let failure = checkpoint(dir.path(), None).unwrap_err();
    assert_eq!(failure.code, "not_a_repository");
    assert_eq!(failure.kind, "user");
}

#[test]
fn extract_reads_without_writing() {
    let json = extract(REPLY).unwrap();
    let extraction: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(extraction["edits"][0]["path"], "notes.txt");
    assert_eq!(extraction["issues"], serde_json::json!([]));
}
