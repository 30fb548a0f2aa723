//! Every job as a front end other than the CLI (the MCP server, the page) calls it: one engine
//! function per operation, a serializable outcome, and an error that says its kind and code.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use salve_engine::record::{self, RecordState, Shown};
use salve_engine::{apply, checkpoint, commit, restore, undo, Classified, Kind};

mod support;
use support::repo;

const REPLY: &str = "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn one() -> u32 {\n-    1\n+    2\n }\n```\n";

fn lib(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("src/lib.rs")).unwrap()
}

/// The kind and code of an error, for comparing.
fn class(e: &impl Classified) -> (Kind, &'static str) {
    (e.kind(), e.code())
}

#[test]
fn an_apply_is_recorded_by_the_engine_and_read_back_through_the_record_operations() {
    let dir = repo();
    let applied = apply::apply(REPLY, &apply::Options::new(dir.path())).unwrap();
    assert!(lib(dir.path()).contains("    2\n"));
    let run = applied.run.clone().expect("the apply was recorded");
    assert!(applied.record_error.is_none());
    assert!(applied.diff.contains("+    2"), "{}", applied.diff);
    // The outcome is data: the report, what was written, the run.
    let json = serde_json::to_value(&applied).unwrap();
    assert_eq!(json["report"]["outcome"], "applied");
    assert_eq!(json["written"][0], "src/lib.rs");
    assert_eq!(json["run"], run.as_str());

    let log = record::log(&record::LogOptions {
        dir: dir.path().to_path_buf(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(log.record, RecordState::Kept);
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.runs[0].run.id, run);
    assert_eq!(log.runs[0].run.status, "applied");
    assert_eq!(log.runs[0].run.checkpoint, applied.checkpoint);

    let show = |what| {
        record::show(&record::ShowOptions {
            dir: dir.path().to_path_buf(),
            run: run[..8].to_owned(),
            what,
        })
        .unwrap()
    };
    let record::ShowOutcome::Record(shown) = show(Shown::Record) else {
        panic!("a record was asked for")
    };
    assert_eq!(shown.patch_sets.len(), 1);
    assert_eq!(shown.patch_sets[0].files[0].path, "src/lib.rs");
    let record::ShowOutcome::Diffs { diffs, .. } = show(Shown::Diffs) else {
        panic!("diffs were asked for")
    };
    assert_eq!(diffs, vec![applied.diff.clone().into_bytes()]);
    let record::ShowOutcome::Artifact(reply) = show(Shown::Artifact("raw_reply".into())) else {
        panic!("an artifact was asked for")
    };
    assert_eq!(reply, REPLY.as_bytes());

    // Export from one repository, import into another: the same run, once.
    let mut exported = Vec::new();
    let outcome = record::export(
        &record::ExportOptions {
            dir: dir.path().to_path_buf(),
            runs: record::Selection::All,
        },
        &mut exported,
    )
    .unwrap();
    assert_eq!(outcome.exported, 1);
    let other = repo();
    let import = |bytes: &[u8]| {
        record::import(
            &record::ImportOptions {
                dir: other.path().to_path_buf(),
                file: None,
            },
            &mut &bytes[..],
        )
        .unwrap()
    };
    assert_eq!(import(&exported).imported, 1);
    assert_eq!(import(&exported).skipped, 1);

    let gc = record::gc(&record::GcOptions {
        dir: dir.path().to_path_buf(),
        older_than_ms: Some(0),
    })
    .unwrap();
    assert!(gc.record);
    assert_eq!(gc.stats.runs_pruned, 1);
}

#[test]
fn a_refused_apply_is_recorded_with_its_reason_and_writes_nothing() {
    let dir = repo();
    let reply = REPLY.replace("pub fn one", "pub fn none");
    let outcome = apply::apply(&reply, &apply::Options::new(dir.path())).unwrap();
    assert!(outcome.written.is_empty());
    assert!(outcome.checkpoint.is_none());
    let log = record::log(&record::LogOptions {
        dir: dir.path().to_path_buf(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(log.runs[0].run.status, "refused");
    let message = log.runs[0].run.message.clone().unwrap();
    assert!(message.starts_with("src/lib.rs: not_found"), "{message}");
}

#[test]
fn checkpoints_restore_and_undo_are_operations_with_classified_refusals() {
    let dir = repo();
    let d = dir.path().to_path_buf();
    // A fresh repository has nothing to undo: a refusal, not a failure.
    let err = undo::undo(&undo::Options::new(&d)).unwrap_err();
    assert_eq!(class(&err), (Kind::Refused, "nothing_to_undo"));

    let taken = checkpoint::create(&checkpoint::CreateOptions {
        message: Some("before the edit".into()),
        ..checkpoint::CreateOptions::new(&d)
    })
    .unwrap();
    let listed = checkpoint::list(&checkpoint::ListOptions {
        dir: d.clone(),
        here: true,
        limit: None,
        offset: 0,
    })
    .unwrap();
    assert_eq!(listed.checkpoints.len(), 1);
    assert_eq!(listed.checkpoints[0].id, taken.id);
    assert_eq!(listed.checkpoints[0].message, "before the edit");

    std::fs::write(d.join("src/lib.rs"), "changed by hand\n").unwrap();
    let restored = restore::restore(&restore::Options::new(&d, &taken.id)).unwrap();
    assert_eq!(restored.written, vec!["src/lib.rs".to_owned()]);
    assert!(lib(&d).contains("    1\n"));
    // The restore checkpointed the state it replaced: undo brings the hand edit back.
    let undone = undo::undo(&undo::Options::new(&d)).unwrap();
    assert_eq!(undone.undone.kind, "restore");
    assert_eq!(lib(&d), "changed by hand\n");

    let err = restore::restore(&restore::Options::new(&d, "ffffffffff")).unwrap_err();
    assert_eq!(class(&err), (Kind::User, "no_such_checkpoint"));

    let dropped = checkpoint::drop(&checkpoint::DropOptions {
        dir: d.clone(),
        selection: checkpoint::DropSelection::Id(taken.id.clone()),
    })
    .unwrap();
    assert_eq!(dropped.dropped, vec![taken.id]);
}

#[test]
fn commit_takes_only_the_named_files_and_refuses_when_there_is_nothing() {
    let dir = repo();
    let d = dir.path().to_path_buf();
    std::fs::write(d.join("src/lib.rs"), "pub fn one() -> u32 {\n    2\n}\n").unwrap();
    std::fs::write(d.join("notes.txt"), "mine\n").unwrap();
    let options = commit::Options {
        dir: d.clone(),
        files: vec!["src/lib.rs".into()],
        kind: String::new(),
        summary: "return two".into(),
        scopes: Vec::new(),
        failed_tasks: vec!["cargo test".into()],
        verification: Some(commit::Verification::Passed),
        no_verify: false,
        exact: Vec::new(),
    };
    let made = commit::commit(&options).unwrap();
    assert_eq!(made.changed, vec!["src/lib.rs".to_owned()]);
    assert!(
        made.message.starts_with("fix(lib): return two\n"),
        "{}",
        made.message
    );
    assert!(
        made.message.contains("Failed tasks: cargo test"),
        "{}",
        made.message
    );
    // The other file is still the user's, untracked.
    assert!(d.join("notes.txt").is_file());
    let err = commit::commit(&options).unwrap_err();
    assert_eq!(class(&err), (Kind::Refused, "nothing_to_commit"));
}

#[test]
fn errors_outside_a_repository_are_user_errors_with_a_hint_in_domain_words() {
    let plain = tempfile::tempdir().unwrap();
    let err = checkpoint::create(&checkpoint::CreateOptions::new(plain.path())).unwrap_err();
    assert_eq!(class(&err), (Kind::User, "not_a_repository"));
    let hint = err.hint().unwrap();
    assert!(!hint.contains("-C"), "{hint}");

    let missing = plain.path().join("missing");
    let err = record::log(&record::LogOptions {
        dir: missing,
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(class(&err), (Kind::User, "not_a_directory"));

    // No record outside git without .salve/: an empty history, nothing created.
    let log = record::log(&record::LogOptions {
        dir: plain.path().to_path_buf(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(log.record, RecordState::NotKept);
    assert!(!plain.path().join(".salve").exists());
}
