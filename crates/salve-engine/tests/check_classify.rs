//! Classification: the table row by row, real environment failures saved from real tools, real
//! code failures, and real runs (a missing command, a missing linker, a missing Python module,
//! a crate with a type error).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_engine::fix::check::{run, CheckOptions, CheckResult, Status};
use salve_engine::fix::classify::{
    classify, classify_in, Classification, FailureClass, Scope, TABLE,
};
use salve_engine::fix::failures::{extract, Failure, FailureKind, Tool};

fn failed(log: &str) -> CheckResult {
    CheckResult::from_log(
        "/tmp/x",
        Status::Exited { code: 1 },
        log.as_bytes().to_vec(),
    )
}

fn a_code_failure() -> Failure {
    Failure::new(Tool::Cargo, FailureKind::Test, "assertion failed")
}

#[test]
fn every_table_row_matches_its_example() {
    for (i, pattern) in TABLE.iter().enumerate() {
        let log = format!("some noise\n{}\nmore noise\n", pattern.example);
        let verdict = classify(&failed(&log), &[]);
        assert_eq!(
            verdict.class,
            FailureClass::Environment,
            "row {i}: {}",
            pattern.example
        );
        assert_eq!(
            verdict.reason, pattern.reason,
            "row {i}: {}",
            pattern.example
        );
        assert_eq!(verdict.transient, pattern.transient, "row {i}");
        assert_eq!(
            verdict.evidence.as_deref(),
            Some(pattern.example),
            "row {i}"
        );
    }
}

#[test]
fn always_rows_win_over_code_failures_and_unexplained_rows_do_not() {
    for pattern in TABLE {
        let verdict = classify(&failed(pattern.example), &[a_code_failure()]);
        let expected = match pattern.scope {
            Scope::Always => FailureClass::Environment,
            Scope::Unexplained => FailureClass::Code,
        };
        assert_eq!(verdict.class, expected, "{}", pattern.example);
    }
}

#[test]
fn matching_ignores_case_and_needs_the_parts_in_order() {
    let verdict = classify(&failed("ERROR: LINKER `cc` NOT FOUND"), &[]);
    assert_eq!(verdict.reason, "the linker is not installed");
    let reversed = classify(&failed("not found: linker `cc`"), &[]);
    assert_ne!(reversed.reason, "the linker is not installed");
}

#[test]
fn statuses_decide_first() {
    let cases = [
        (
            Status::NotFound {
                program: "tsc".to_owned(),
            },
            "`tsc` is not installed or not on PATH",
            false,
        ),
        (Status::TimedOut, "the check ran past its time limit", true),
        (Status::Cancelled, "the check was cancelled", false),
        (
            Status::Signal { signal: 9 },
            "the check was killed by signal 9 (SIGKILL), most likely the out-of-memory killer",
            true,
        ),
        (
            Status::Signal { signal: 11 },
            "the check was killed by signal 11",
            false,
        ),
        (
            Status::CannotStart {
                error: "cannot start `x`: Permission denied".to_owned(),
            },
            "cannot start `x`: Permission denied",
            false,
        ),
    ];
    for (status, reason, transient) in cases {
        let result = CheckResult::from_log("/tmp/x", status.clone(), Vec::new());
        let verdict = classify(&result, &[a_code_failure()]);
        let expected = Classification {
            class: FailureClass::Environment,
            reason: reason.to_owned(),
            transient,
            evidence: None,
        };
        assert_eq!(verdict, expected, "{status:?}");
    }
}

#[test]
fn shell_exit_codes_127_and_126_without_output_are_the_environment() {
    for (code, reason) in [
        (127, "a command the check runs is not installed (exit 127)"),
        (
            126,
            "a command the check runs cannot be executed (exit 126)",
        ),
    ] {
        let result = CheckResult::from_log("/tmp/x", Status::Exited { code }, Vec::new());
        let verdict = classify(&result, &[]);
        assert_eq!(
            (verdict.class, verdict.reason.as_str()),
            (FailureClass::Environment, reason)
        );
    }
}

#[test]
fn code_failures_are_summarized_and_unrecognized_failures_stay_code() {
    let mut failures = vec![a_code_failure(), a_code_failure()];
    failures.push(Failure::new(Tool::Tsc, FailureKind::Type, "x"));
    let verdict = classify(&failed("whatever"), &failures);
    assert_eq!(verdict.class, FailureClass::Code);
    assert_eq!(verdict.reason, "1 type error, 2 test failures");
    let verdict = classify(&failed("something odd happened"), &[]);
    assert_eq!(verdict.class, FailureClass::Code);
    assert_eq!(
        verdict.reason,
        "the check failed with exit code 1 and no environment problem was recognized"
    );
}

/// A saved log of a real tool, classified with its extracted failures.
fn saved(name: &str, status: Status) -> Classification {
    let path = format!("{}/tests/fixtures/check/{name}", env!("CARGO_MANIFEST_DIR"));
    let result = CheckResult::from_log("/tmp/fx", status, std::fs::read(path).unwrap());
    let command = vec!["sh".to_owned(), "-c".to_owned(), "check".to_owned()];
    classify(&result, &extract(&command, &result))
}

#[test]
fn real_environment_failures_are_the_environment() {
    let cases = [
        (
            "env/cargo-build-missing-linker.txt",
            101,
            "the linker is not installed",
        ),
        (
            "env/cargo-build-missing-linker-json.txt",
            101,
            "the linker is not installed",
        ),
        (
            "env/gcc-missing-lib.txt",
            1,
            "a system library the build links against is missing",
        ),
        (
            "env/python-no-pytest.txt",
            1,
            "pytest is not installed for this Python",
        ),
        (
            "env/sh-not-found.txt",
            127,
            "a command the check runs is not installed",
        ),
        ("env/sh-permission-denied.txt", 126, "permission denied"),
        ("env/disk-full.txt", 1, "the disk is full"),
        (
            "env/unittest-connection-refused.txt",
            1,
            "a service the check connects to is not running (connection refused)",
        ),
        (
            "env/curl-connection-refused.txt",
            7,
            "a service the check connects to is not running (connection refused)",
        ),
        (
            "env/make-missing-tool.txt",
            2,
            "a command the Makefile runs is not installed (exit 127)",
        ),
    ];
    for (name, code, reason) in cases {
        let verdict = saved(name, Status::Exited { code });
        assert_eq!(verdict.class, FailureClass::Environment, "{name}");
        assert_eq!(verdict.reason, reason, "{name}");
        assert!(!verdict.transient, "{name}");
    }
    // Worth running again: the machine may have memory, the network an answer, next time.
    for (name, reason) in [
        (
            "env/unittest-socket-timeout.txt",
            "a network connection timed out",
        ),
        (
            "env/python-memory-error.txt",
            "Python ran out of memory (MemoryError)",
        ),
    ] {
        let verdict = saved(name, Status::Exited { code: 1 });
        assert_eq!(verdict.class, FailureClass::Environment, "{name}");
        assert_eq!(verdict.reason, reason, "{name}");
        assert!(verdict.transient, "{name}");
    }
}

/// A module Python cannot find is a package not installed, unless the project has a module of
/// that name: then the import is the project's own, misspelled, and that is code.
#[test]
fn a_missing_package_is_the_environment_and_the_projects_own_typo_is_code() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("pkg")).unwrap();
    std::fs::write(
        project.path().join("pkg/core.py"),
        "def double(x):\n    return 2 * x\n",
    )
    .unwrap();
    let judge = |name: &str| {
        let path = format!("{}/tests/fixtures/check/{name}", env!("CARGO_MANIFEST_DIR"));
        let result = CheckResult::from_log(
            "/tmp/fx",
            Status::Exited { code: 1 },
            std::fs::read(path).unwrap(),
        );
        let command = vec!["python3".to_owned(), "-m".to_owned(), "unittest".to_owned()];
        classify_in(project.path(), &result, &extract(&command, &result))
    };
    let missing = judge("env/unittest-missing-package.txt");
    assert_eq!(missing.class, FailureClass::Environment, "{missing:?}");
    assert_eq!(
        missing.reason,
        "the Python package `requestz` is not installed"
    );
    let typo = judge("unittest/import-typo-own-package.txt");
    assert_eq!(typo.class, FailureClass::Code, "{typo:?}");
}

#[test]
fn real_code_failures_are_code() {
    let cases = [
        ("cargo/build-json.txt", "1 compile error, 1 type error"),
        ("cargo/clippy-text.txt", "2 lint errors"),
        ("cargo/test-text.txt", "2 test failures"),
        ("gcc/compile.txt", "1 compile error"),
        ("clang/link.txt", "1 compile error"),
        ("tsc/plain.txt", "7 type errors"),
        ("eslint/stylish.txt", "1 compile error, 3 lint errors"),
        ("pytest/failures.txt", "3 test failures"),
        // A typo in the project's own import: the failure is extracted, so it is the code's.
        ("pytest/collect-error.txt", "1 compile error"),
        ("unittest/discover.txt", "1 compile error, 2 test failures"),
        (
            "go/test-all.txt",
            "3 compile errors, 1 type error, 2 test failures",
        ),
        ("generic/shellcheck.txt", "5 errors"),
    ];
    for (name, reason) in cases {
        let verdict = saved(name, Status::Exited { code: 1 });
        assert_eq!(verdict.class, FailureClass::Code, "{name}");
        assert_eq!(verdict.reason, reason, "{name}");
    }
}

fn tempdir_check(command: &[&str]) -> (tempfile::TempDir, CheckOptions) {
    let dir = tempfile::tempdir().unwrap();
    let command = command.iter().map(|s| (*s).to_owned()).collect();
    let options = CheckOptions::new(dir.path(), command);
    (dir, options)
}

fn run_and_classify(options: &CheckOptions) -> (CheckResult, Vec<Failure>, Classification) {
    let result = run(options).unwrap();
    let failures = extract(&options.command, &result);
    let verdict = classify(&result, &failures);
    (result, failures, verdict)
}

#[test]
fn running_a_missing_command_is_the_environment() {
    let (_dir, options) = tempdir_check(&["salve-no-such-checker", "--all"]);
    let (_, failures, verdict) = run_and_classify(&options);
    assert!(failures.is_empty());
    assert_eq!(verdict.class, FailureClass::Environment);
    assert_eq!(
        verdict.reason,
        "`salve-no-such-checker` is not installed or not on PATH"
    );
}

#[test]
fn importing_a_missing_python_module_is_the_environment() {
    let (_dir, options) = tempdir_check(&["sh", "-c", "python3 -c 'import salve_no_such_module'"]);
    let (result, failures, verdict) = run_and_classify(&options);
    if matches!(result.status, Status::Exited { code: 127 }) {
        return; // No Python on this machine; the shell's verdict is tested elsewhere.
    }
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(verdict.class, FailureClass::Environment);
    assert_eq!(verdict.reason, "a Python module is not installed");
}

/// A target directory shared by every test crate, so each build after the first is quick: inside
/// the workspace's own when one is set, but not that directory itself, whose lock cargo may hold.
fn shared_target() -> String {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    base.join("salve-check-projects").display().to_string()
}

fn tiny_crate(dir: &std::path::Path, name: &str, lib: &str) {
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/main.rs"), lib).unwrap();
}

#[test]
fn a_real_cargo_build_with_a_type_error_is_code_with_its_span() {
    let (dir, mut options) = tempdir_check(&["cargo", "build"]);
    tiny_crate(
        dir.path(),
        "salve_check_type_error",
        "fn main() {\n    let n: u32 = \"three\";\n    println!(\"{n}\");\n}\n",
    );
    options.command =
        salve_engine::fix::failures::with_message_format_json(&options.command).unwrap();
    options.env = vec![("CARGO_TARGET_DIR".to_owned(), shared_target())];
    let (result, failures, verdict) = run_and_classify(&options);
    assert!(!result.passed());
    assert_eq!(failures.len(), 1, "{failures:?}\n{}", result.output);
    let f = &failures[0];
    assert_eq!(
        (
            f.file.as_deref(),
            f.line,
            f.column,
            f.code.as_deref(),
            f.kind,
            f.message.as_str()
        ),
        (
            Some("src/main.rs"),
            Some(2),
            Some(18),
            Some("E0308"),
            FailureKind::Type,
            "mismatched types"
        )
    );
    assert_eq!(verdict.class, FailureClass::Code);
    assert_eq!(verdict.reason, "1 type error");
}

#[test]
fn a_real_cargo_build_without_its_linker_is_the_environment() {
    let (dir, mut options) = tempdir_check(&["cargo", "build"]);
    tiny_crate(dir.path(), "salve_check_no_linker", "fn main() {}\n");
    options.env = vec![
        ("CARGO_TARGET_DIR".to_owned(), shared_target()),
        (
            "RUSTFLAGS".to_owned(),
            "-Clinker=salve-no-such-linker".to_owned(),
        ),
    ];
    let (result, failures, verdict) = run_and_classify(&options);
    assert!(!result.passed());
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(
        verdict.class,
        FailureClass::Environment,
        "{}",
        result.output
    );
    assert_eq!(verdict.reason, "the linker is not installed");
    assert_eq!(
        verdict.evidence.as_deref(),
        Some("error: linker `salve-no-such-linker` not found")
    );
}
