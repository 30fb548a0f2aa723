//! The change stamp a page polls: it moves on every write the listing shows (a run started,
//! finished, rewound, brought back, an attempt recorded), stays put while nothing is written,
//! and is one counter row: the same read on an empty record and on a large one.

use salve_store::{Attempt, Finish, NewRun, RunKind};

use crate::support::{command, full_run, Scratch};

#[test]
fn the_stamp_moves_on_every_listed_change_and_only_then() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let mut seen = vec![store.stamp().unwrap()];
    let mut moved = |store: &salve_store::Store, what: &str| {
        let now = store.stamp().unwrap();
        assert!(
            !seen.contains(&now),
            "{what}: the stamp did not move ({now})"
        );
        assert_eq!(
            store.stamp().unwrap(),
            now,
            "{what}: steady while nothing changes"
        );
        seen.push(now);
    };
    let id = store
        .begin_run(&NewRun::new(RunKind::Apply, command(&["salve", "apply"])))
        .unwrap();
    moved(&store, "a run started");
    store
        .add_attempt(
            &id,
            &Attempt {
                provider: Some("claude".into()),
                ..Attempt::default()
            },
        )
        .unwrap();
    moved(&store, "an attempt recorded");
    store
        .finish_run(
            &id,
            &Finish {
                status: "applied".into(),
                checkpoint: Some("cp".into()),
                ..Default::default()
            },
        )
        .unwrap();
    moved(&store, "the run finished");
    store.mark_rewound(&id, "before-commit").unwrap();
    moved(&store, "the run was rewound");
    store.unmark_rewound("before-commit").unwrap();
    moved(&store, "the run was brought back");
    full_run(&mut store);
    moved(&store, "a whole fix run recorded");
}

#[test]
fn a_version_1_record_gets_a_stamp_that_moves() {
    let scratch = Scratch::new();
    let layout = scratch.layout();
    std::fs::create_dir_all(&layout.dir).unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1.db");
    std::fs::copy(src, &layout.db).unwrap();
    let mut store = salve_store::Store::open_layout(layout).unwrap();
    let before = store.stamp().unwrap();
    assert_eq!(before, "3", "back-filled from the three runs there are");
    store
        .begin_run(&NewRun::new(RunKind::Apply, command(&["salve", "apply"])))
        .unwrap();
    assert_ne!(store.stamp().unwrap(), before);
}
