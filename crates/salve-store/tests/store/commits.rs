//! A job's start and end as one commit each (`begin_run_with`, `finish_run_with`), and the
//! WAL checkpoint left from the end's commit to the next start, which takes it before its row.

use salve_store::{
    Batch, Decision, FileChange, Finish, NewRun, PatchSet, PatchStatus, RunKind, StoreError,
    TouchedFile,
};

use crate::support::{command, Scratch};

fn patch_set() -> PatchSet {
    PatchSet {
        seq: 0,
        baseline: Some("abc".into()),
        diff_sha256: None,
        files: vec![TouchedFile {
            path: "notes.txt".into(),
            old_path: None,
            change: FileChange::Modify,
            added: 1,
            removed: 1,
        }],
        rationale: None,
        format: Some("unified".into()),
        status: PatchStatus::Applied,
        reason: None,
    }
}

fn applied() -> Finish {
    Finish {
        status: "applied".into(),
        checkpoint: Some("cp-1".into()),
        ..Finish::default()
    }
}

#[test]
fn a_run_started_and_finished_in_one_commit_each_reads_back() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let new = NewRun::new(RunKind::Apply, command(&["salve", "apply", "r.diff"]));
    let (run, kept) = store
        .begin_run_with(&new, &[("raw_reply", b"the reply")])
        .unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(store.record(&run).unwrap().run.status, "running");
    let batch = Batch {
        artifacts: vec![("apply_report", b"{}"), ("final_diff", b"--- a\n")],
        patch_sets: vec![patch_set()],
        attempts: Vec::new(),
        decisions: vec![Decision {
            seq: 0,
            chosen: "exact".into(),
            alternatives: Vec::new(),
            confidence: Some(1.0),
            evidence: None,
        }],
    };
    store.finish_run_with(&run, &batch, &applied()).unwrap();

    let rec = store.record(&run).unwrap();
    assert_eq!(rec.run.status, "applied");
    assert_eq!(rec.run.checkpoint.as_deref(), Some("cp-1"));
    assert!(rec.run.ended_at.is_some());
    assert_eq!((rec.run.files, rec.run.added, rec.run.removed), (1, 1, 1));
    let mut names: Vec<&str> = rec.artifacts.iter().map(|a| a.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["apply_report", "final_diff", "raw_reply"]);
    assert_eq!(store.artifact(&run, "raw_reply").unwrap(), b"the reply");
    assert_eq!(rec.patch_sets.len(), 1);
    assert_eq!(rec.patch_sets[0].seq, 1);
    assert_eq!(rec.decisions.len(), 1);
    assert_eq!(rec.decisions[0].chosen, "exact");
}

#[test]
fn bad_names_statuses_and_runs_are_refused_whole() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let new = NewRun::new(RunKind::Apply, command(&["salve", "apply"]));
    let err = store
        .begin_run_with(&new, &[("raw_reply", b"x"), ("a/b", b"y")])
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err}");
    assert!(err.to_string().contains("not an artifact name"), "{err}");
    // Nothing was started: no run row.
    assert_eq!(
        store.list(&salve_store::LogQuery::default()).unwrap().len(),
        0
    );

    let (run, _) = store.begin_run_with(&new, &[]).unwrap();
    let empty = Finish::default();
    let err = store
        .finish_run_with(&run, &Batch::default(), &empty)
        .unwrap_err();
    assert!(err.to_string().contains("needs a status"), "{err}");
    let err = store
        .finish_run_with("00000000000000000000", &Batch::default(), &applied())
        .unwrap_err();
    assert!(matches!(err, StoreError::NoSuchRun(_)), "{err}");
    assert_eq!(store.record(&run).unwrap().run.status, "running");
}

/// The database file alone (no WAL): what checkpoints have folded in so far.
fn status_in_database_file(scratch: &Scratch, run: &str) -> Option<String> {
    let copy = scratch.dir.path().join("alone.db");
    std::fs::copy(scratch.layout().db, &copy).unwrap();
    let conn = rusqlite::Connection::open(&copy).unwrap();
    let status = conn
        .query_row("SELECT status FROM runs WHERE id = ?1", [run], |r| r.get(0))
        .ok();
    drop(conn);
    std::fs::remove_file(&copy).unwrap();
    status
}

#[test]
fn the_start_folds_the_wal_in_before_its_row_and_the_end_never() {
    let scratch = Scratch::new();
    let new = NewRun::new(RunKind::Apply, command(&["salve", "apply"]));
    let reply = vec![b'x'; 3000];
    let mut checkpointed_starts = 0;
    let mut previous: Option<String> = None;
    for _ in 0..40 {
        // A process per run, as the CLI is: open, start, finish, close.
        let mut store = scratch.open();
        let (before, folded) = store.wal_frames().unwrap();
        let (run, _) = store
            .begin_run_with(&new, &[("raw_reply", reply.as_slice())])
            .unwrap();
        let (started, _) = store.wal_frames().unwrap();
        if before - folded >= 64 {
            // Due: the start folded the WAL in first, so its own commit began the WAL
            // anew (and synced its header): the end, which a caller waits for, only appends.
            checkpointed_starts += 1;
            assert!(started < before, "{started} frames after {before}");
            let prev = previous.as_deref().unwrap();
            assert_eq!(
                status_in_database_file(&scratch, prev).as_deref(),
                Some("applied")
            );
            assert_eq!(status_in_database_file(&scratch, &run), None);
        } else {
            assert!(started > before, "{started} frames after {before}");
        }
        let batch = Batch {
            patch_sets: vec![patch_set()],
            ..Batch::default()
        };
        store.finish_run_with(&run, &batch, &applied()).unwrap();
        let (ended, _) = store.wal_frames().unwrap();
        assert!(ended > started, "the end restarted the WAL");
        drop(store);
        // The end's commit never folded the WAL into the database...
        assert_ne!(
            status_in_database_file(&scratch, &run).as_deref(),
            Some("applied")
        );
        // ...and the WAL stays small all the same: starts fold it in.
        let wal = std::fs::metadata(scratch.layout().dir.join("salve.db-wal")).unwrap();
        assert!(wal.len() < 2 * 64 * 4120, "WAL of {} bytes", wal.len());
        assert!(ended < 2 * 64, "{ended} frames in the WAL");
        // What was committed is there for the next reader.
        assert_eq!(scratch.open().record(&run).unwrap().run.status, "applied");
        previous = Some(run);
    }
    assert!(checkpointed_starts > 0, "no start folded the WAL in");
}

#[test]
fn an_end_compiled_ahead_still_finishes_after_another_process_changed_the_schema() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let new = NewRun::new(RunKind::Apply, command(&["salve", "apply"]));
    let (run, _) = store.begin_run_with(&new, &[("raw_reply", b"r")]).unwrap();
    store.prepare_finish().unwrap();
    // Another connection changes the schema under the compiled statements: SQLite must
    // compile them again rather than run them against the old one.
    let other = rusqlite::Connection::open(scratch.layout().db).unwrap();
    other
        .execute_batch("CREATE INDEX extra_by_message ON runs(message);")
        .unwrap();
    drop(other);
    let batch = Batch {
        artifacts: vec![("apply_report", b"{}")],
        patch_sets: vec![patch_set()],
        ..Batch::default()
    };
    store.finish_run_with(&run, &batch, &applied()).unwrap();
    let rec = store.record(&run).unwrap();
    assert_eq!(rec.run.status, "applied");
    assert_eq!((rec.run.files, rec.run.added, rec.run.removed), (1, 1, 1));
    assert_eq!(store.artifact(&run, "apply_report").unwrap(), b"{}");
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}

#[test]
fn a_reader_holding_an_old_snapshot_neither_blocks_nor_fails_the_starts_checkpoints() {
    let scratch = Scratch::new();
    let new = NewRun::new(RunKind::Apply, command(&["salve", "apply"]));
    let reply = vec![b'y'; 3000];
    let first = scratch.open().begin_run(&new).unwrap();
    // Another process in the middle of a long read (`salve log` paging, the page): its
    // snapshot pins the WAL, so no checkpoint may fold past it or restart the WAL.
    let reader = rusqlite::Connection::open(scratch.layout().db).unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let seen = |c: &rusqlite::Connection| -> i64 {
        c.query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(seen(&reader), 1);
    let mut runs = vec![first];
    let mut most = 0;
    for _ in 0..12 {
        let mut store = scratch.open();
        let (run, _) = store
            .begin_run_with(&new, &[("raw_reply", reply.as_slice())])
            .unwrap();
        let batch = Batch {
            patch_sets: vec![patch_set()],
            ..Batch::default()
        };
        store.finish_run_with(&run, &batch, &applied()).unwrap();
        most = most.max(store.wal_frames().unwrap().0);
        runs.push(run);
    }
    // The WAL grew past the point a start folds it in: checkpoints were due and could not
    // restart it, and every run was recorded all the same.
    assert!(
        most > 2 * 64,
        "only {most} frames: no checkpoint was held back"
    );
    assert_eq!(seen(&reader), 1, "the reader's snapshot moved");
    reader.execute_batch("COMMIT").unwrap();
    drop(reader);
    // With the reader gone, the next start folds everything in and begins the WAL anew.
    let mut store = scratch.open();
    let run = store.begin_run(&new).unwrap();
    let (frames, _) = store.wal_frames().unwrap();
    assert!(frames < 64, "{frames} frames after the reader left");
    runs.push(run);
    for run in &runs[1..runs.len() - 1] {
        assert_eq!(store.record(run).unwrap().run.status, "applied");
    }
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}
