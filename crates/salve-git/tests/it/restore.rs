//! Restore details beyond the data-loss suite: what it reports and what it logs.

use std::path::PathBuf;

use salve_git::checkpoint::{self, create};
use salve_git::{oplog, restore};

use crate::support::TestRepo;

#[test]
fn reports_written_and_deleted_paths_and_logs_itself() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.write("b.txt", "b\n");
    t.commit_all("init");
    let cp = checkpoint::create(&t.repo(), &create::Options::default()).unwrap();
    t.write("a.txt", "changed\n");
    t.write("c.txt", "new\n");
    t.write("emptied/only.txt", "only\n");
    t.remove("b.txt");
    let outcome = restore(&t.repo(), &cp.id[..7], &restore::Options::default()).unwrap();
    let mut written = outcome.written.clone();
    written.sort();
    assert_eq!(
        written,
        vec![PathBuf::from("a.txt"), PathBuf::from("b.txt")]
    );
    let mut deleted = outcome.deleted.clone();
    deleted.sort();
    assert_eq!(
        deleted,
        vec![PathBuf::from("c.txt"), PathBuf::from("emptied/only.txt")]
    );
    assert!(!t.exists("emptied"), "emptied directory should go too");
    assert!(outcome.index_restored);
    assert!(!outcome.head_differs);
    let log = oplog::read(&t.repo()).unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].kind, "restore");
    assert_eq!(log[0].before, outcome.before.commit);
    assert_eq!(log[0].target.as_deref(), Some(cp.commit.as_str()));
    // The pre-restore checkpoint holds the state the restore replaced.
    assert_eq!(
        t.git(&["show", &format!("{}:c.txt", outcome.before.commit)]),
        "new"
    );
}

#[test]
fn unknown_checkpoint_is_a_clear_error() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let err = restore(&t.repo(), "deadbeef", &restore::Options::default()).unwrap_err();
    assert!(
        err.to_string().contains("no checkpoint `deadbeef`"),
        "{err}"
    );
}

#[test]
fn file_standing_where_a_directory_must_go_blocks() {
    let t = TestRepo::new();
    t.write("blocker/inside.txt", "inside\n");
    t.commit_all("init");
    let cp = checkpoint::create(&t.repo(), &create::Options::default()).unwrap();
    t.git(&["rm", "-q", "-r", "blocker"]);
    t.write(".gitignore", "blocker\n");
    t.write("blocker", "an ignored file where the directory was\n");
    let before = t.state();
    let err = restore(&t.repo(), &cp.id, &restore::Options::default()).unwrap_err();
    match err {
        restore::Error::Blocked(conflicts) => assert_eq!(
            conflicts,
            vec![restore::Conflict {
                path: "blocker/inside.txt".into(),
                kind: restore::ConflictKind::FileInTheWay {
                    blocking: "blocker".into()
                }
            }]
        ),
        other => panic!("expected Blocked, got {other}"),
    }
    assert_eq!(t.state(), before);
}

#[test]
fn big_uncaptured_file_in_the_way_blocks_instead_of_being_overwritten() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    t.write("model.bin", "small enough to capture\n");
    let limits = create::Limits {
        max_file_bytes: 100,
        ..create::Limits::default()
    };
    let options = create::Options {
        limits: limits.clone(),
        ..Default::default()
    };
    let cp = checkpoint::create(&t.repo(), &options).unwrap();
    assert!(cp.skipped.is_empty());
    t.write("model.bin", vec![b'w'; 1_000]);
    let before = t.state();
    let restore_options = restore::Options {
        limits,
        ..restore::Options::default()
    };
    let err = restore(&t.repo(), &cp.id, &restore_options).unwrap_err();
    match err {
        restore::Error::Blocked(conflicts) => assert_eq!(
            conflicts,
            vec![restore::Conflict {
                path: "model.bin".into(),
                kind: restore::ConflictKind::TooLargeToCapture { bytes: 1_000 }
            }]
        ),
        other => panic!("expected Blocked, got {other}"),
    }
    assert_eq!(t.state(), before);
}

#[test]
fn checkpoint_during_a_conflicted_merge_keeps_the_work_tree() {
    let t = TestRepo::new();
    t.write("f.txt", "base\n");
    t.commit_all("base");
    t.git(&["checkout", "-q", "-b", "other"]);
    t.write("f.txt", "other\n");
    t.commit_all("other");
    t.git(&["checkout", "-q", "main"]);
    t.write("f.txt", "main\n");
    t.commit_all("main");
    assert!(!t.git_output(&["merge", "-q", "other"]).status.success());
    let conflicted = t.read("f.txt");
    let before = t.state();

    let cp = checkpoint::create(&t.repo(), &create::Options::default()).unwrap();
    assert_eq!(t.state(), before);
    assert_eq!(cp.index_tree, None, "a conflicted index has no tree");
    assert_eq!(
        t.git_bytes(&["cat-file", "blob", &format!("{}:f.txt", cp.commit)]),
        conflicted
    );

    t.git(&["merge", "--abort"]);
    let outcome = restore(&t.repo(), &cp.id, &restore::Options::default()).unwrap();
    assert!(!outcome.index_restored);
    assert_eq!(t.read("f.txt"), conflicted);
}

#[test]
fn oplog_survives_in_each_linked_worktree_separately() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let wt_path = t.root.parent().unwrap().join("linked");
    t.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        wt_path.to_str().unwrap(),
    ]);
    let wt = t.at(wt_path);
    let options = create::Options {
        operation: Some("apply".into()),
        ..Default::default()
    };
    checkpoint::create(&wt.repo(), &options).unwrap();
    assert_eq!(oplog::read(&wt.repo()).unwrap().len(), 1);
    assert!(oplog::read(&t.repo()).unwrap().is_empty());
}

#[test]
fn the_last_operation_is_read_from_the_end_of_a_long_log() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let repo = t.repo();
    assert_eq!(oplog::last(&repo).unwrap(), None, "no log yet");
    // Far more than the tail read, so the first line of the tail is cut mid-line.
    for i in 0..500 {
        oplog::record(&repo, "apply", &format!("{i:040x}"), None).unwrap();
    }
    oplog::record(&repo, "restore", &"b".repeat(40), Some(&"c".repeat(40))).unwrap();
    let last = oplog::last(&repo).unwrap().unwrap();
    assert_eq!(last.kind, "restore");
    assert_eq!(last.before, "b".repeat(40));
    assert_eq!(last.target, Some("c".repeat(40)));
    assert_eq!(
        Some(last),
        oplog::read(&repo).unwrap().pop(),
        "the same as reading it all"
    );
}
