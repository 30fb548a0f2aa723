//! Helpers: a store in a fresh temporary directory, and sample records.

use salve_store::{
    Attempt, Decision, FileChange, Layout, NewRun, PatchSet, PatchStatus, RunKind, Store,
    TouchedFile,
};
use tempfile::TempDir;

pub struct Scratch {
    pub dir: TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn layout(&self) -> Layout {
        Layout::at(self.dir.path().join("salve"), false)
    }

    pub fn open(&self) -> Store {
        Store::open_layout(self.layout()).unwrap()
    }
}

pub fn command(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

/// A fix-like run with two patch sets, two attempts, a decision and three artifacts, finished.
pub fn full_run(store: &mut Store) -> String {
    let mut new = NewRun::new(
        RunKind::Fix,
        command(&["salve", "fix", "--", "cargo", "test"]),
    );
    new.budgets = Some(serde_json::json!({"steps": 4}));
    let run = store.begin_run(&new).unwrap();
    store.put_artifact(&run, "raw_reply", b"reply one").unwrap();
    let diff = store
        .put_artifact(&run, "final_diff", b"diff --git a/x b/x\n")
        .unwrap();
    store
        .put_artifact(&run, "check_log.1", b"\xff\xfe binary log")
        .unwrap();
    let s1 = store
        .add_patch_set(
            &run,
            &PatchSet {
                seq: 0,
                baseline: Some("abc".into()),
                diff_sha256: None,
                files: vec![TouchedFile {
                    path: "src/a.rs".into(),
                    old_path: None,
                    change: FileChange::Modify,
                    added: 5,
                    removed: 1,
                }],
                rationale: Some("first try".into()),
                format: Some("unified".into()),
                status: PatchStatus::Rejected,
                reason: Some("tests still fail".into()),
            },
        )
        .unwrap();
    let s2 = store
        .add_patch_set(
            &run,
            &PatchSet {
                seq: 0,
                baseline: Some("abc".into()),
                diff_sha256: Some(diff.sha256.clone()),
                files: vec![
                    TouchedFile {
                        path: "src/b.rs".into(),
                        old_path: Some("src/old_b.rs".into()),
                        change: FileChange::Rename,
                        added: 2,
                        removed: 2,
                    },
                    TouchedFile {
                        path: "src/c.rs".into(),
                        old_path: None,
                        change: FileChange::Add,
                        added: 7,
                        removed: 0,
                    },
                ],
                rationale: None,
                format: Some("mixed".into()),
                status: PatchStatus::Proposed,
                reason: None,
            },
        )
        .unwrap();
    assert_eq!((s1, s2), (1, 2));
    store
        .set_patch_status(&run, 2, PatchStatus::Applied, None)
        .unwrap();
    store
        .add_attempt(
            &run,
            &Attempt {
                patch_set: Some(1),
                check_command: Some("cargo test".into()),
                exit_code: Some(101),
                failure_class: Some("test_failure".into()),
                duration_ms: Some(1200),
                provider: Some("replay".into()),
                model: Some("m1".into()),
                tokens_in: Some(1000),
                tokens_out: Some(200),
                cost_usd: Some(0.01),
                latency_ms: Some(800),
                log_artifact: Some("check_log.1".into()),
                ..Attempt::default()
            },
        )
        .unwrap();
    store
        .add_attempt(
            &run,
            &Attempt {
                patch_set: Some(2),
                exit_code: Some(0),
                ..Attempt::default()
            },
        )
        .unwrap();
    store
        .add_decision(
            &run,
            &Decision {
                seq: 0,
                chosen: "retry with the test output".into(),
                alternatives: vec!["give up".into()],
                confidence: Some(0.75),
                evidence: Some("compiles; one test fails".into()),
            },
        )
        .unwrap();
    store
        .finish_run(
            &run,
            &salve_store::Finish {
                status: "repaired".into(),
                checkpoint: Some("cp-9".into()),
                ..Default::default()
            },
        )
        .unwrap();
    run
}
