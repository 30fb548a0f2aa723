//! Export then import: the record arrives whole, twice is once, bad input imports nothing.

use salve_store::{exchange::ExportedRun, LogQuery, StoreError};

use crate::support::{full_run, Scratch};

#[test]
fn export_import_round_trips() {
    let from = Scratch::new();
    let mut src = from.open();
    let a = full_run(&mut src);
    let b = full_run(&mut src);
    let mut out = Vec::new();
    src.export(&src.all_ids().unwrap(), &mut out).unwrap();
    let text = String::from_utf8(out.clone()).unwrap();
    assert_eq!(text.lines().count(), 2);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["salve_export"], 1);
    assert_eq!(first["run"]["id"], a.as_str());
    // The binary log travels as base64, text as itself.
    let arts = first["artifacts"].as_array().unwrap();
    let log = arts.iter().find(|x| x["name"] == "check_log.1").unwrap();
    assert_eq!(log["encoding"], "base64");
    let reply = arts.iter().find(|x| x["name"] == "raw_reply").unwrap();
    assert_eq!(reply["content"], "reply one");

    let to = Scratch::new();
    let mut dst = to.open();
    let stats = dst.import(&mut out.as_slice()).unwrap();
    assert_eq!((stats.imported, stats.skipped), (2, 0));
    for id in [&a, &b] {
        assert_eq!(dst.record(id).unwrap(), src.record(id).unwrap());
        assert_eq!(
            dst.artifact(id, "check_log.1").unwrap(),
            b"\xff\xfe binary log"
        );
    }
    assert_eq!(
        dst.list(&LogQuery::default()).unwrap(),
        src.list(&LogQuery::default()).unwrap()
    );
    let again = dst.import(&mut out.as_slice()).unwrap();
    assert_eq!((again.imported, again.skipped), (0, 2));
    assert_eq!(dst.count().unwrap(), 2);
}

#[test]
fn a_tampered_line_imports_nothing() {
    let from = Scratch::new();
    let mut src = from.open();
    let a = full_run(&mut src);
    let b = full_run(&mut src);
    let good = src.exported(&a).unwrap();
    let mut bad: ExportedRun = src.exported(&b).unwrap();
    let reply = bad
        .artifacts
        .iter_mut()
        .find(|a| a.name == "raw_reply")
        .unwrap();
    reply.content.push('!');
    let text = format!(
        "{}\n\n{}\n",
        serde_json::to_string(&good).unwrap(),
        serde_json::to_string(&bad).unwrap()
    );
    let to = Scratch::new();
    let mut dst = to.open();
    let err = dst.import(&mut text.as_bytes()).unwrap_err();
    assert!(matches!(err, StoreError::Import { line: 3, .. }), "{err}");
    assert!(err.to_string().contains("does not match"), "{err}");
    assert_eq!(dst.count().unwrap(), 0);

    let err = dst.import(&mut "{not json".as_bytes()).unwrap_err();
    assert!(matches!(err, StoreError::Import { line: 1, .. }), "{err}");
}

#[test]
fn an_unfinished_run_imports_as_interrupted() {
    let from = Scratch::new();
    let mut src = from.open();
    let id = src
        .begin_run(&salve_store::NewRun::new(
            salve_store::RunKind::Apply,
            vec!["salve".into()],
        ))
        .unwrap();
    // Still running here: this test process owns it.
    assert_eq!(src.record(&id).unwrap().run.status, "running");
    let mut out = Vec::new();
    src.export(std::slice::from_ref(&id), &mut out).unwrap();
    let to = Scratch::new();
    let mut dst = to.open();
    dst.import(&mut out.as_slice()).unwrap();
    assert_eq!(dst.record(&id).unwrap().run.status, "interrupted");
}
