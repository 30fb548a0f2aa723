//! A long-lived process keeps record connections open between uses (its own test binary:
//! keeping is process-wide).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_store::{Layout, LogQuery, NewRun, RunKind, Store};

fn begin(store: &mut Store) -> String {
    store
        .begin_run(&NewRun::new(
            RunKind::Apply,
            vec!["salve".into(), "apply".into()],
        ))
        .unwrap()
}

fn ids(store: &Store) -> Vec<String> {
    let all = LogQuery::default();
    store
        .list(&all)
        .unwrap()
        .into_iter()
        .map(|r| r.run.id)
        .collect()
}

#[test]
fn kept_connections_see_every_write_and_never_outlive_their_file() {
    salve_store::keep_connections_open();
    let dir = tempfile::tempdir().unwrap();
    let layout = || Layout::at(dir.path().join("salve"), false);

    let mut first = Store::open_layout(layout()).unwrap();
    let one = begin(&mut first);
    drop(first);
    // Another process's write (a connection of its own) while this one's is kept idle.
    let mut other = Store::open_layout(layout()).unwrap();
    let mut elsewhere = Store::open_layout(layout()).unwrap();
    let two = begin(&mut elsewhere);
    drop(elsewhere);
    let three = begin(&mut other);
    drop(other);
    let reopened = Store::open_layout(layout()).unwrap();
    let mut seen = ids(&reopened);
    seen.sort();
    let mut want = vec![one, two, three];
    want.sort();
    assert_eq!(seen, want);
    drop(reopened);

    // The record deleted while its connection is kept: the next open starts a new file,
    // and what it writes is in that file (a fresh connection, not the kept one, reads it).
    std::fs::remove_dir_all(dir.path().join("salve")).unwrap();
    let mut fresh = Store::open_layout(layout()).unwrap();
    assert!(ids(&fresh).is_empty(), "a deleted record is not read");
    let four = begin(&mut fresh);
    drop(fresh);
    let db = layout().db;
    let conn = rusqlite::Connection::open(&db).unwrap();
    let count: i64 = conn
        .query_row("SELECT count(*) FROM runs WHERE id = ?1", [&four], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(count, 1, "the write went to the file on disk");
}
