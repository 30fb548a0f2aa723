//! The check runner on real processes: statuses, capture, caps, timeout and cancel killing the
//! whole tree. No test asserts a duration.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use salve_engine::fix::check::{run, CheckError, CheckOptions, Status};
use salve_engine::Classified;

fn sh(dir: &std::path::Path, script: &str) -> CheckOptions {
    let command = vec!["sh".to_owned(), "-c".to_owned(), script.to_owned()];
    CheckOptions::new(dir, command)
}

#[test]
fn a_zero_exit_passes_and_both_streams_are_captured() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&sh(dir.path(), "echo out-1; echo err-1 >&2; echo out-2")).unwrap();
    assert_eq!(result.status, Status::Exited { code: 0 });
    assert!(result.passed());
    let log = result.log_text();
    for line in ["out-1\n", "err-1\n", "out-2\n"] {
        assert!(log.contains(line), "{log}");
    }
    assert!(log.find("out-1").unwrap() < log.find("out-2").unwrap());
    assert_eq!(result.output, log);
    assert_eq!(result.log_bytes, 18);
}

#[test]
fn a_failing_exit_code_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&sh(dir.path(), "echo broken >&2; exit 3")).unwrap();
    assert_eq!(result.status, Status::Exited { code: 3 });
    assert!(!result.passed());
    assert_eq!(result.log, b"broken\n");
}

#[test]
fn the_check_runs_in_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("marker.txt"), "here").unwrap();
    let result = run(&sh(dir.path(), "cat marker.txt")).unwrap();
    assert_eq!(result.log, b"here");
    assert_eq!(result.dir, std::fs::canonicalize(dir.path()).unwrap());
}

#[test]
fn a_missing_program_is_a_result_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let options = CheckOptions::new(dir.path(), vec!["salve-no-such-program-x".to_owned()]);
    let result = run(&options).unwrap();
    assert_eq!(
        result.status,
        Status::NotFound {
            program: "salve-no-such-program-x".to_owned()
        }
    );
    assert!(!result.passed());
}

#[test]
fn a_program_without_the_execute_bit_cannot_start() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("check.sh");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    let options = CheckOptions::new(dir.path(), vec![script.display().to_string()]);
    let result = run(&options).unwrap();
    match &result.status {
        Status::CannotStart { error } => assert!(error.contains("ermission denied"), "{error}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_signal_is_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&sh(dir.path(), "kill -9 $$")).unwrap();
    assert_eq!(result.status, Status::Signal { signal: 9 });
}

#[test]
fn a_timeout_kills_the_whole_tree() {
    let dir = tempfile::tempdir().unwrap();
    // The grandchild writes its pid, then both would sleep for 30 s.
    let mut options = sh(dir.path(), "sleep 30 & echo $! > pid; echo started; wait");
    options.timeout = Duration::from_millis(500);
    let result = run(&options).unwrap();
    assert_eq!(result.status, Status::TimedOut);
    let pid = std::fs::read_to_string(dir.path().join("pid")).unwrap();
    assert_gone(pid.trim());
    assert!(!result.passed());
}

#[test]
fn a_plain_timeout_on_sleep() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = CheckOptions::new(dir.path(), vec!["sleep".to_owned(), "30".to_owned()]);
    options.timeout = Duration::from_millis(100);
    assert_eq!(run(&options).unwrap().status, Status::TimedOut);
}

#[test]
fn a_raised_cancel_flag_kills_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = CheckOptions::new(dir.path(), vec!["sleep".to_owned(), "30".to_owned()]);
    let flag = Arc::new(AtomicBool::new(false));
    options.cancel = Some(flag.clone());
    let raiser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let result = run(&options).unwrap();
    raiser.join().unwrap();
    assert_eq!(result.status, Status::Cancelled);
}

#[test]
fn a_background_child_holding_the_pipes_does_not_keep_salve_waiting() {
    let dir = tempfile::tempdir().unwrap();
    // Without the lingerer kill this would run into the time limit.
    let mut options = sh(dir.path(), "sleep 60 & echo leader done");
    options.timeout = Duration::from_secs(30);
    let result = run(&options).unwrap();
    assert_eq!(result.status, Status::Exited { code: 0 });
    assert_eq!(result.log, b"leader done\n");
}

#[test]
fn output_is_capped_head_and_tail_while_the_log_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = sh(dir.path(), "seq 1 20000");
    options.output_cap = 1000;
    let result = run(&options).unwrap();
    let expected: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    assert_eq!(result.log_text(), expected);
    assert_eq!(result.log_bytes, expected.len() as u64);
    assert!(result.output.starts_with("1\n2\n3\n"), "{}", result.output);
    assert!(result.output.ends_with("19999\n20000\n"));
    assert!(result.output.contains(" bytes cut …\n"));
    assert!(result.output.len() < 1100);
}

#[test]
fn the_log_has_its_own_cap() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = sh(dir.path(), "seq 1 20000");
    options.log_cap = 2000;
    let result = run(&options).unwrap();
    assert!(result.log.len() < 2100);
    assert!(result.log_text().ends_with("20000\n"));
    assert_eq!(result.log_bytes, 108894);
}

#[test]
fn bad_options_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = run(&CheckOptions::new(dir.path(), vec![])).unwrap_err();
    assert!(matches!(err, CheckError::EmptyCommand));
    assert_eq!(err.code(), "empty_check_command");
    let missing = dir.path().join("nope");
    let err = run(&CheckOptions::new(&missing, vec!["true".to_owned()])).unwrap_err();
    assert!(matches!(err, CheckError::NoDirectory(_)));
    assert_eq!(err.kind(), salve_engine::Kind::User);
}

#[test]
fn json_carries_status_output_and_passed_but_not_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&sh(dir.path(), "echo nope; exit 2")).unwrap();
    let mut json = serde_json::to_value(&result).unwrap();
    assert!(json["duration_ms"].is_u64());
    json["duration_ms"] = 0.into();
    assert_eq!(
        json,
        serde_json::json!({
            "duration_ms": 0,
            "log_bytes": 5,
            "output": "nope\n",
            "passed": false,
            "status": {"kind": "exited", "code": 2},
        })
    );
    let timed_out = serde_json::to_value(Status::TimedOut).unwrap();
    assert_eq!(timed_out, serde_json::json!({"kind": "timed_out"}));
}

/// The process is gone, or a zombie waiting for init to reap it.
fn assert_gone(pid: &str) {
    for _ in 0..100 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return,
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z') =>
            {
                return
            }
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    panic!("process {pid} survived the kill");
}
