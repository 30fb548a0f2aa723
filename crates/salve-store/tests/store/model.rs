//! The model end to end: what is written reads back the same; listings, filters, id prefixes,
//! deduplicated artifacts.

use salve_store::{status, LogQuery, NewRun, RunKind, StoreError, Timestamp};

use crate::support::{command, full_run, Scratch};

#[test]
fn a_full_run_reads_back() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let id = full_run(&mut store);
    let rec = store.record(&id).unwrap();
    assert_eq!(rec.run.id, id);
    assert_eq!(rec.run.kind, RunKind::Fix);
    assert_eq!(
        rec.run.command,
        command(&["salve", "fix", "--", "cargo", "test"])
    );
    assert_eq!(rec.run.status, "repaired");
    assert_eq!(rec.run.checkpoint.as_deref(), Some("cp-9"));
    assert_eq!(rec.run.budgets, Some(serde_json::json!({"steps": 4})));
    assert!(rec.run.ended_at.unwrap() >= rec.run.started_at);
    // Totals count the patch sets that were not rejected: b.rs and c.rs.
    assert_eq!((rec.run.files, rec.run.added, rec.run.removed), (2, 9, 2));
    assert_eq!(rec.patch_sets.len(), 2);
    assert_eq!(
        rec.patch_sets[1].files[0].old_path.as_deref(),
        Some("src/old_b.rs")
    );
    assert_eq!(rec.patch_sets[1].status, salve_store::PatchStatus::Applied);
    assert_eq!(rec.attempts.len(), 2);
    assert_eq!(rec.attempts[0].tokens_in, Some(1000));
    assert_eq!(rec.attempts[0].cost_usd, Some(0.01));
    assert_eq!(rec.attempts[1].seq, 2);
    assert_eq!(rec.decisions[0].alternatives, vec!["give up".to_owned()]);
    let names: Vec<&str> = rec.artifacts.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["check_log.1", "final_diff", "raw_reply"]);
    assert_eq!(store.artifact(&id, "raw_reply").unwrap(), b"reply one");
    assert!(matches!(
        store.artifact(&id, "nope"),
        Err(StoreError::NoSuchArtifact { .. })
    ));
}

#[test]
fn listing_is_newest_first_and_filters() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let mut ids = Vec::new();
    for (i, st) in ["applied", "refused", "applied"].iter().enumerate() {
        let kind = if i == 1 { RunKind::Ask } else { RunKind::Apply };
        let id = store
            .begin_run(&NewRun::new(kind, command(&["salve"])))
            .unwrap();
        store
            .finish_run(
                &id,
                &salve_store::Finish {
                    status: (*st).into(),
                    ..Default::default()
                },
            )
            .unwrap();
        ids.push(id);
        std::thread::sleep(std::time::Duration::from_millis(3));
    }
    let all = store.list(&LogQuery::default()).unwrap();
    let got: Vec<&str> = all.iter().map(|s| s.run.id.as_str()).collect();
    assert_eq!(got, [&ids[2], &ids[1], &ids[0]]);
    let applied = store
        .list(&LogQuery {
            status: Some("applied".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(applied.len(), 2);
    let one = store
        .list(&LogQuery {
            limit: Some(1),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(one[0].run.id, ids[2]);
    let asks = store
        .list(&LogQuery {
            kind: Some(RunKind::Ask),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(asks.len(), 1);
    let future = store
        .list(&LogQuery {
            since: Some(Timestamp(Timestamp::now().0 + 60_000)),
            ..Default::default()
        })
        .unwrap();
    assert!(future.is_empty());
    // Ids made within milliseconds share their time digits, so short ids grow past 7.
    for s in &all {
        assert!(s.short_id.len() >= 7 && s.run.id.starts_with(&s.short_id));
        assert_eq!(store.resolve(&s.short_id).unwrap(), s.run.id);
    }
}

#[test]
fn prefixes_resolve_or_say_why_not() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let a = store
        .begin_run(&NewRun::new(RunKind::Apply, command(&["salve"])))
        .unwrap();
    let b = store
        .begin_run(&NewRun::new(RunKind::Apply, command(&["salve"])))
        .unwrap();
    assert_eq!(store.resolve(&a).unwrap(), a);
    assert_eq!(store.resolve(&b.to_uppercase()).unwrap(), b);
    let err = store.resolve(&a[..3]).unwrap_err();
    assert!(
        matches!(err, StoreError::AmbiguousRun { count: 2, .. }),
        "{err}"
    );
    assert!(matches!(
        store.resolve("ffffffff"),
        Err(StoreError::NoSuchRun(_))
    ));
    assert!(matches!(store.resolve("xyz"), Err(StoreError::BadRunId(_))));
}

/// Every file under the record's object directory.
fn object_files(store: &salve_store::Store) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let Ok(fans) = std::fs::read_dir(&store.layout().objects) else {
        return files;
    };
    for fan in fans {
        for f in std::fs::read_dir(fan.unwrap().path()).unwrap() {
            files.push(f.unwrap().path());
        }
    }
    files
}

#[test]
fn the_same_reply_recorded_twice_is_stored_once() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let small = "Here is the fix:\n```diff\n-a\n+b\n```\n".to_owned();
    // Past the size kept in the database: stored as an object file.
    let large = format!("```diff\n{}```\n", "+line of a long reply\n".repeat(2_000));
    for reply in [&small, &large] {
        let mut begin = || {
            let run = store
                .begin_run(&NewRun::new(RunKind::Apply, command(&["salve", "apply"])))
                .unwrap();
            store
                .put_artifact(&run, "raw_reply", reply.as_bytes())
                .unwrap();
            run
        };
        let (one, two) = (begin(), begin());
        let r1 = store.record(&one).unwrap();
        let r2 = store.record(&two).unwrap();
        assert_eq!(r1.artifacts[0].sha256, r2.artifacts[0].sha256);
        assert_eq!(store.artifact(&two, "raw_reply").unwrap(), reply.as_bytes());
    }
    // The small reply is one row of the database and no file; the large one is one file.
    let files = object_files(&store);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), large);
    let conn = rusqlite::Connection::open(&store.layout().db).unwrap();
    let rows: Vec<Vec<u8>> = conn
        .prepare("SELECT bytes FROM contents")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows, vec![small.into_bytes()]);
}

#[test]
fn a_content_row_whose_bytes_do_not_match_its_name_is_reported_corrupt() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let run = store
        .begin_run(&NewRun::new(RunKind::Apply, command(&["salve", "apply"])))
        .unwrap();
    store.put_artifact(&run, "raw_reply", b"-a\n+b\n").unwrap();
    let conn = rusqlite::Connection::open(&store.layout().db).unwrap();
    conn.execute("UPDATE contents SET bytes = x'2d610a2b630a'", [])
        .unwrap();
    let err = store.artifact(&run, "raw_reply").unwrap_err();
    assert!(err.to_string().contains("is corrupt"), "{err}");
}

#[test]
fn an_unfinished_run_of_this_process_is_running() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let id = store
        .begin_run(&NewRun::new(RunKind::Apply, command(&["salve"])))
        .unwrap();
    assert_eq!(store.record(&id).unwrap().run.status, status::RUNNING);
    let running = store
        .list(&LogQuery {
            status: Some("running".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(running.len(), 1);
    let interrupted = store
        .list(&LogQuery {
            status: Some("interrupted".into()),
            ..Default::default()
        })
        .unwrap();
    assert!(interrupted.is_empty());
}

#[test]
fn a_record_is_not_created_by_looking() {
    let scratch = Scratch::new();
    let store = salve_store::Store::open_existing(scratch.dir.path()).unwrap();
    assert!(store.is_none());
    assert!(!scratch.dir.path().join(".salve").exists());
}

#[test]
fn usage_counts_model_calls_and_checks_apart() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let id = full_run(&mut store);
    let listed = store
        .list(&LogQuery {
            usage: true,
            ..Default::default()
        })
        .unwrap();
    let usage = listed
        .iter()
        .find(|r| r.run.id == id)
        .unwrap()
        .usage
        .clone()
        .unwrap();
    // One attempt called a model and ran the check; the other only recorded an exit code.
    assert_eq!((usage.attempts, usage.calls, usage.checks), (2, 1, 1));
}

#[test]
fn an_artifact_kept_as_an_object_file_by_an_older_salve_still_reads() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let run = store
        .begin_run(&NewRun::new(RunKind::Apply, command(&["salve", "apply"])))
        .unwrap();
    // What schema version 5 wrote for every artifact: an object file and a row naming it.
    let sha = store.objects().put(b"-a\n+b\n").unwrap();
    let conn = rusqlite::Connection::open(&store.layout().db).unwrap();
    conn.execute(
        "INSERT INTO artifacts (run_id, name, sha256, size) VALUES (?1, 'raw_reply', ?2, 6)",
        rusqlite::params![run, sha],
    )
    .unwrap();
    assert_eq!(store.artifact(&run, "raw_reply").unwrap(), b"-a\n+b\n");
    assert_eq!(store.content(&sha).unwrap(), b"-a\n+b\n");
}
