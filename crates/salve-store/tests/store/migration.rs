//! A record written by schema version 1 (tests/fixtures/v1.db, made from v1.sql) opens with the
//! current salve: migrated in place, nothing lost, the new per-run totals back-filled.

use salve_store::{schema::SCHEMA_VERSION, LogQuery, PatchStatus, Store};

use crate::support::Scratch;

fn fixture(scratch: &Scratch) -> salve_store::Layout {
    let layout = scratch.layout();
    std::fs::create_dir_all(&layout.dir).unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1.db");
    std::fs::copy(src, &layout.db).unwrap();
    layout
}

fn user_version(path: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn version_1_migrates_to_current() {
    let scratch = Scratch::new();
    let layout = fixture(&scratch);
    assert_eq!(user_version(&layout.db), 1);
    let store = Store::open_layout(layout.clone()).unwrap();
    assert_eq!(user_version(&layout.db), SCHEMA_VERSION);
    const { assert!(SCHEMA_VERSION > 1) };

    let runs = store.list(&LogQuery::default()).unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r.run.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "0192f0a1b2c3aaaa0003",
            "0192f0a1b2c3aaaa0002",
            "0192f0a1b2c3aaaa0001"
        ]
    );
    // Back-filled totals: run 1 touched two files (+13 -1); run 2 was refused (nothing kept);
    // run 3's first patch set was rejected, its second kept (+2 -2).
    let totals: Vec<(u64, u64, u64)> = runs
        .iter()
        .map(|r| (r.run.files, r.run.added, r.run.removed))
        .collect();
    assert_eq!(totals, [(1, 2, 2), (0, 0, 0), (2, 13, 1)]);
    assert_eq!(runs[1].paths, ["src/lib.rs"]);

    let fix = store.record("0192f0a1b2c3aaaa0003").unwrap();
    assert_eq!(fix.run.status, "repaired");
    assert_eq!(fix.run.budgets.unwrap()["tokens"], 12000);
    assert_eq!(fix.patch_sets.len(), 2);
    assert_eq!(fix.patch_sets[0].status, PatchStatus::Rejected);
    assert_eq!(
        fix.attempts[0].failure_class.as_deref(),
        Some("test_failure")
    );
    assert_eq!(fix.attempts[1].log_artifact, None);
    assert_eq!(fix.decisions[0].confidence, Some(0.7));
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}

#[test]
fn a_migrated_record_takes_new_runs() {
    let scratch = Scratch::new();
    let layout = fixture(&scratch);
    let mut store = Store::open_layout(layout).unwrap();
    let id = crate::support::full_run(&mut store);
    assert_eq!(store.count().unwrap(), 4);
    assert_eq!(store.list(&LogQuery::default()).unwrap()[0].run.id, id);
}

#[test]
fn a_newer_record_is_refused_and_left_alone() {
    let scratch = Scratch::new();
    let layout = scratch.layout();
    {
        let mut store = Store::open_layout(layout.clone()).unwrap();
        crate::support::full_run(&mut store);
    }
    {
        let conn = rusqlite::Connection::open(&layout.db).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .unwrap();
    }
    let before = std::fs::read(&layout.db).unwrap();
    let err = Store::open_layout(layout.clone()).unwrap_err();
    assert!(
        err.to_string().contains("newer than this salve knows"),
        "{err}"
    );
    assert!(err.hint().unwrap().contains("upgrade salve"));
    assert_eq!(std::fs::read(&layout.db).unwrap(), before);
}

#[test]
fn a_migrated_record_counts_budgets_and_keeps_rules() {
    let scratch = Scratch::new();
    let layout = fixture(&scratch);
    let mut store = Store::open_layout(layout).unwrap();
    assert_eq!(
        store.spend_budget("main", "sig", "attempts", 3).unwrap(),
        salve_store::Spend::Spent(1)
    );
    assert_eq!(store.budget_counters(None, None).unwrap().len(), 1);
    assert!(store.rules().unwrap().is_empty());
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}
