//! Several processes at once: two writers both land every run, and a writer killed in the middle
//! of a run leaves a readable record where that run reads as `interrupted`.
//!
//! The child processes are this test binary itself, running the ignored `child` test with its
//! role in the environment.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use salve_store::{status, LogQuery, NewRun, RunKind, Store};

use crate::support::{command, full_run, Scratch};

const ROLE: &str = "SALVE_STORE_TEST_ROLE";
const DIR: &str = "SALVE_STORE_TEST_DIR";
const RUNS_PER_WRITER: usize = 60;

fn child_command(scratch: &Scratch, role: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--ignored", "--exact", "concurrency::child", "--nocapture"])
        .env(ROLE, role)
        .env(DIR, scratch.layout().dir)
        .stdout(Stdio::piped());
    cmd
}

/// Not a test on its own: the body of the child processes.
#[test]
#[ignore = "run by the other tests as a child process"]
fn child() {
    let role = std::env::var(ROLE).unwrap();
    let dir = std::env::var(DIR).unwrap();
    let mut store = Store::open_layout(salve_store::Layout::at(dir, false)).unwrap();
    match role.as_str() {
        "writer" => {
            for _ in 0..RUNS_PER_WRITER {
                full_run(&mut store);
            }
        }
        "stuck" => {
            let id = store
                .begin_run(&NewRun::new(RunKind::Fix, command(&["salve", "fix"])))
                .unwrap();
            store.put_artifact(&id, "raw_reply", b"half way").unwrap();
            println!("started {id}");
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn two_writers_land_every_run() {
    let scratch = Scratch::new();
    // Both children race to create and migrate the database too.
    let mut children: Vec<_> = (0..2)
        .map(|_| child_command(&scratch, "writer").spawn().unwrap())
        .collect();
    for child in &mut children {
        assert!(child.wait().unwrap().success());
    }
    let store = scratch.open();
    assert_eq!(store.count().unwrap() as usize, 2 * RUNS_PER_WRITER);
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
    let runs = store.list(&LogQuery::default()).unwrap();
    assert!(runs.iter().all(|r| r.run.status == "repaired"));
    // Every run is whole: two patch sets, two attempts, readable artifacts.
    for r in &runs {
        let rec = store.record(&r.run.id).unwrap();
        assert_eq!((rec.patch_sets.len(), rec.attempts.len()), (2, 2));
        assert_eq!(
            store.artifact(&r.run.id, "raw_reply").unwrap(),
            b"reply one"
        );
    }
}

#[test]
fn a_killed_writer_leaves_an_interrupted_run() {
    let scratch = Scratch::new();
    let mut store = scratch.open();
    let done = full_run(&mut store);
    let mut child = child_command(&scratch, "stuck").spawn().unwrap();
    // The test harness prints its own lines first.
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let id = loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the child ended early"
        );
        if let Some(id) = line.trim().strip_prefix("started ") {
            break id.to_owned();
        }
    };
    assert_eq!(store.record(&id).unwrap().run.status, status::RUNNING);

    child.kill().unwrap();
    child.wait().unwrap();

    let store = scratch.open();
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
    let rec = store.record(&id).unwrap();
    assert_eq!(rec.run.status, status::INTERRUPTED);
    assert!(rec.run.ended_at.is_none());
    assert_eq!(store.artifact(&id, "raw_reply").unwrap(), b"half way");
    assert_eq!(store.record(&done).unwrap().run.status, "repaired");
    let interrupted = store
        .list(&LogQuery {
            status: Some("interrupted".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(interrupted.len(), 1);
    assert_eq!(interrupted[0].run.id, id);
}
