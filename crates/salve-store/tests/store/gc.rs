//! gc prunes old runs and unreferenced objects, and keeps everything still referenced.

use std::time::Duration;

use salve_store::{GcOptions, Timestamp};

use crate::support::{full_run, Scratch};

fn object_count(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|fan| std::fs::read_dir(fan.path()).unwrap().count())
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn gc_keeps_referenced_objects_and_prunes_old_runs() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let old = full_run(&mut store);
    let orphan = store.objects().put(b"nobody refers to me").unwrap();
    let fan = store.layout().objects.join("ab");
    std::fs::create_dir_all(&fan).unwrap();
    std::fs::write(fan.join("tmp-1-2-3"), b"half written").unwrap();
    let objects = store.layout().objects.clone();
    let before = object_count(&objects);

    // With the default grace period nothing young is touched.
    let stats = store.gc(&GcOptions::default()).unwrap();
    assert_eq!(stats.objects_removed + stats.temp_files_removed, 0);
    assert_eq!(object_count(&objects), before);

    let no_grace = GcOptions {
        grace: Duration::ZERO,
        ..GcOptions::default()
    };
    let stats = store.gc(&no_grace).unwrap();
    assert_eq!(stats.objects_removed, 1);
    assert_eq!(stats.temp_files_removed, 1);
    assert!(!store.objects().contains(&orphan));
    assert_eq!(store.artifact(&old, "raw_reply").unwrap(), b"reply one");

    // The reply is kept in the database (small contents are), until its run goes.
    let reply_sha = store
        .record(&old)
        .unwrap()
        .artifacts
        .into_iter()
        .find(|a| a.name == "raw_reply")
        .unwrap()
        .sha256;
    assert_eq!(store.content(&reply_sha).unwrap(), b"reply one");

    // Prune runs older than an hour, as seen from two hours in the future.
    let later = GcOptions {
        older_than_ms: Some(3_600_000),
        now: Timestamp(Timestamp::now().0 + 7_200_000),
        grace: Duration::ZERO,
    };
    let stats = store.gc(&later).unwrap();
    assert_eq!(stats.runs_pruned, 1);
    assert_eq!(store.count().unwrap(), 0);
    assert_eq!(object_count(&objects), 0);
    assert!(stats.objects_removed >= 1, "{stats:?}");
    assert!(matches!(
        store.content(&reply_sha),
        Err(salve_store::StoreError::MissingObject(_))
    ));
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}

#[test]
fn gc_spares_a_run_in_progress() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let id = store
        .begin_run(&salve_store::NewRun::new(
            salve_store::RunKind::Ask,
            vec!["salve".into()],
        ))
        .unwrap();
    let stats = store
        .gc(&GcOptions {
            older_than_ms: Some(0),
            now: Timestamp(Timestamp::now().0 + 1000),
            grace: Duration::ZERO,
        })
        .unwrap();
    assert_eq!(stats.runs_pruned, 0);
    assert_eq!(store.resolve(&id).unwrap(), id);
}
