//! Every parser on real output saved from the real tool (see `tests/fixtures/check/README.md`).
//! Each failure is rendered as `file:line:column kind tool code test | message`, `-` for none,
//! and compared exactly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_engine::fix::check::{CheckResult, Status};
use salve_engine::fix::failures::{extract, Failure};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/check/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn render(f: &Failure) -> String {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_owned());
    let json = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    format!(
        "{}:{}:{} {} {} {} {} | {}",
        opt(f.file.clone()),
        opt(f.line.map(|n| n.to_string())),
        opt(f.column.map(|n| n.to_string())),
        json(serde_json::to_value(f.kind).unwrap()),
        json(serde_json::to_value(f.tool).unwrap()),
        opt(f.code.clone()),
        opt(f.test.clone()),
        f.message
    )
}

/// Extract from the fixture as a failed check in `dir` running `command`.
fn check(name: &str, dir: &str, command: &str, expected: &[&str]) {
    let result = CheckResult::from_log(dir, Status::Exited { code: 1 }, fixture(name));
    let command: Vec<String> = command.split(' ').map(str::to_owned).collect();
    let got: Vec<String> = extract(&command, &result).iter().map(render).collect();
    assert_eq!(got, expected, "{name}");
}

#[test]
fn cargo_build_json() {
    check(
        "cargo/build-json.txt",
        "/tmp/fx/rust",
        "cargo build --message-format=json",
        &[
            "src/lib.rs:3:22 compile cargo E0425 - | cannot find value `missing` in this scope",
            "src/lib.rs:2:21 type cargo E0308 - | mismatched types",
        ],
    );
}

#[test]
fn cargo_build_text() {
    check(
        "cargo/build-text.txt",
        "/tmp/fx/rust",
        "cargo build",
        &[
            "src/lib.rs:3:22 compile cargo E0425 - | cannot find value `missing` in this scope",
            "src/lib.rs:2:21 type cargo E0308 - | mismatched types",
        ],
    );
}

#[test]
fn cargo_clippy_text() {
    check(
        "cargo/clippy-text.txt",
        "/tmp/fx/rust",
        "cargo clippy -- -D warnings -W clippy::unwrap_used",
        &[
        "src/lib.rs:3:9 lint cargo unused_variables - | unused variable: `y`",
        "src/lib.rs:2:13 lint cargo clippy::unwrap_used - | used `unwrap()` on an `Option` value",
        ],
    );
}

#[test]
fn cargo_clippy_json() {
    check(
        "cargo/clippy-json.txt",
        "/tmp/fx/rust",
        "cargo clippy --message-format=json -- -D warnings -W clippy::unwrap_used",
        &[
        "src/lib.rs:3:9 lint cargo unused_variables - | unused variable: `y`",
        "src/lib.rs:2:13 lint cargo clippy::unwrap_used - | used `unwrap()` on an `Option` value",
        ],
    );
}

#[test]
fn cargo_test_text() {
    check(
        "cargo/test-text.txt",
        "/tmp/fx/rust",
        "cargo test",
        &[
        "src/lib.rs:16:9 test cargo - tests::adds_zero | zero plus zero is 1",
        "src/lib.rs:11:9 test cargo - tests::adds | assertion `left == right` failed\n  left: 5\n right: 4",
        ],
    );
}

#[test]
fn cargo_test_json() {
    check(
        "cargo/test-json.txt",
        "/tmp/fx/rust",
        "cargo test --message-format=json",
        &[
        "src/lib.rs:16:9 test cargo - tests::adds_zero | zero plus zero is 1",
        "src/lib.rs:11:9 test cargo - tests::adds | assertion `left == right` failed\n  left: 5\n right: 4",
        ],
    );
}

#[test]
fn gcc_compile() {
    check(
        "gcc/compile.txt",
        "/tmp/fx/c",
        "gcc -Wall -c main.c",
        &["main.c:7:32 compile gcc - - | ‘missing’ undeclared (first use in this function)"],
    );
}

#[test]
fn gcc_link() {
    check(
        "gcc/link.txt",
        "/tmp/fx/c",
        "gcc link.c -o link",
        &["link.c:-:- compile gcc link - | undefined reference to `helper'"],
    );
}

#[test]
fn clang_compile() {
    check(
        "clang/compile.txt",
        "/tmp/fx/c",
        "clang -Wall -c main.c",
        &["main.c:7:32 compile clang - - | use of undeclared identifier 'missing'"],
    );
}

#[test]
fn clang_link() {
    check(
        "clang/link.txt",
        "/tmp/fx/c",
        "make",
        &["link.c:-:- compile clang link - | undefined reference to `helper'"],
    );
}

#[test]
fn tsc_plain() {
    check(
        "tsc/plain.txt",
        "/tmp/fx/ts",
        "npx tsc -p .",
        &[
        "src/a.ts:2:9 type tsc TS2322 - | Type 'number' is not assignable to type 'string'.",
        "src/a.ts:3:21 type tsc TS2304 - | Cannot find name 'missing'.",
        "src/a.ts:7:3 type tsc TS2322 - | Type 'number' is not assignable to type 'string'.",
        "src/a.ts:7:17 type tsc TS2345 - | Argument of type 'string' is not assignable to parameter of type 'number'.",
        "src/c.ts:5:30 type tsc TS2353 - | Object literal may only specify known properties, and 'age' does not exist in type 'User'.",
        "src/c.ts:6:15 type tsc TS2339 - | Property 'nmae' does not exist on type 'User'.",
        "src/c.ts:7:14 type tsc TS2322 - | Type '(x: string) => string' is not assignable to type '(x: number) => string'.\n  Types of parameters 'x' and 'x' are incompatible.\n    Type 'number' is not assignable to type 'string'.",
        ],
    );
}

#[test]
fn tsc_pretty() {
    check(
        "tsc/pretty.txt",
        "/tmp/fx/ts",
        "npx tsc -p . --pretty",
        &[
        "src/a.ts:2:9 type tsc TS2322 - | Type 'number' is not assignable to type 'string'.",
        "src/a.ts:3:21 type tsc TS2304 - | Cannot find name 'missing'.",
        "src/a.ts:7:3 type tsc TS2322 - | Type 'number' is not assignable to type 'string'.",
        "src/a.ts:7:17 type tsc TS2345 - | Argument of type 'string' is not assignable to parameter of type 'number'.",
        "src/c.ts:5:30 type tsc TS2353 - | Object literal may only specify known properties, and 'age' does not exist in type 'User'.",
        "src/c.ts:6:15 type tsc TS2339 - | Property 'nmae' does not exist on type 'User'.",
        "src/c.ts:7:14 type tsc TS2322 - | Type '(x: string) => string' is not assignable to type '(x: number) => string'.\n  Types of parameters 'x' and 'x' are incompatible.\n    Type 'number' is not assignable to type 'string'.",
        ],
    );
}

#[test]
fn tsc_syntax() {
    check(
        "tsc/syntax.txt",
        "/tmp/fx/ts",
        "npx tsc -p .",
        &["src/b.ts:1:14 compile tsc TS1109 - | Expression expected."],
    );
}

#[test]
fn eslint_stylish() {
    check(
        "eslint/stylish.txt",
        "/tmp/fx/eslint",
        "npx eslint src",
        &[
        "src/a.js:1:7 lint eslint no-unused-vars - | 'unused' is assigned a value but never used",
        "src/a.js:3:9 lint eslint eqeqeq - | Expected '===' and instead saw '=='",
        "src/a.js:4:17 lint eslint no-undef - | 'y' is not defined",
        "src/b.js:1:16 compile eslint - - | Parsing error: Unexpected token ;",
        ],
    );
}

#[test]
fn eslint_unix() {
    check(
        "eslint/unix.txt",
        "/tmp/fx/eslint",
        "npx eslint -f unix src",
        &[
        "src/a.js:1:7 lint eslint no-unused-vars - | 'unused' is assigned a value but never used.",
        "src/a.js:3:9 lint eslint eqeqeq - | Expected '===' and instead saw '=='.",
        "src/a.js:4:17 lint eslint no-undef - | 'y' is not defined.",
        "src/b.js:1:16 compile eslint - - | Parsing error: Unexpected token ;",
        ],
    );
}

#[test]
fn pytest_failures() {
    check(
        "pytest/failures.txt",
        "/tmp/fx/py",
        "python -m pytest test_calc.py",
        &[
        "test_calc.py:8:- test pytest AssertionError TestCalc.test_add | AssertionError: 5 != 4",
        "calc.py:6:- test pytest ZeroDivisionError TestCalc.test_div | ZeroDivisionError: division by zero",
        "test_calc.py:18:- test pytest AssertionError test_plain_assert | assert 3 == 2\n+  where 3 = add(1, 1)",
        ],
    );
}

#[test]
fn pytest_collect_error() {
    check(
        "pytest/collect-error.txt",
        "/tmp/fx/py",
        "python -m pytest",
        &[
        "test_broken.py:1:- compile pytest ModuleNotFoundError - | ModuleNotFoundError: No module named 'calcc'",
        ],
    );
}

#[test]
fn unittest_discover() {
    check(
        "unittest/discover.txt",
        "/tmp/fx/py",
        "python -m unittest",
        &[
        "test_broken.py:1:- compile unittest ModuleNotFoundError - | ModuleNotFoundError: No module named 'calcc'",
        "calc.py:6:- test unittest ZeroDivisionError test_calc.TestCalc.test_div | ZeroDivisionError: division by zero",
        "test_calc.py:8:- test unittest AssertionError test_calc.TestCalc.test_add | AssertionError: 5 != 4",
        ],
    );
}

#[test]
fn unittest_verbose() {
    check(
        "unittest/verbose.txt",
        "/tmp/fx/py",
        "python -m unittest -v test_calc",
        &[
        "calc.py:6:- test unittest ZeroDivisionError test_calc.TestCalc.test_div | ZeroDivisionError: division by zero",
        "test_calc.py:8:- test unittest AssertionError test_calc.TestCalc.test_add | AssertionError: 5 != 4",
        ],
    );
}

#[test]
fn go_build() {
    check(
        "go/build.txt",
        "/tmp/fx/go",
        "go build ./...",
        &[
        "sub/sub.go:3:8 compile go - - | imported and not used: \"fmt\"",
        "sub/sub.go:6:2 compile go - - | x declared but not used",
        "sub/sub.go:7:17 type go - - | cannot use 3 (untyped int constant) as string value in variable declaration",
        "sub/sub.go:8:9 compile go - - | undefined: undefinedThing",
        ],
    );
}

#[test]
fn go_vet() {
    check(
        "go/vet.txt",
        "/tmp/fx/go",
        "go vet ./sub",
        &[
        "sub/sub.go:7:17 lint go - - | cannot use 3 (untyped int constant) as string value in variable declaration",
        ],
    );
}

#[test]
fn go_test() {
    check(
        "go/test.txt",
        "/tmp/fx/go",
        "go test .",
        &[
            "calc_test.go:7:- test go - TestAdd | Add(2, 2) = 5, want 4",
            "calc_test.go:15:- test go panic TestPanics | assignment to entry in nil map",
        ],
    );
}

#[test]
fn go_test_all() {
    check(
        "go/test-all.txt",
        "/tmp/fx/go",
        "go test ./...",
        &[
        "sub/sub.go:3:8 compile go - - | imported and not used: \"fmt\"",
        "sub/sub.go:6:2 compile go - - | x declared but not used",
        "sub/sub.go:7:17 type go - - | cannot use 3 (untyped int constant) as string value in variable declaration",
        "sub/sub.go:8:9 compile go - - | undefined: undefinedThing",
        "calc_test.go:7:- test go - TestAdd | Add(2, 2) = 5, want 4",
        "calc_test.go:15:- test go panic TestPanics | assignment to entry in nil map",
        ],
    );
}

#[test]
fn generic_shellcheck() {
    check(
        "generic/shellcheck.txt",
        "/tmp/fx/sh",
        "shellcheck -f gcc build.sh lint.sh",
        &[
        "build.sh:2:1 other generic SC1049 - | Did you forget the 'then' for this 'if'?",
        "build.sh:2:1 other generic SC1073 - | Couldn't parse this if expression. Fix to allow more checks.",
        "build.sh:4:1 other generic SC1050 - | Expected 'then'.",
        "build.sh:4:3 other generic SC1072 - | Unexpected keyword/token. Fix any mentioned problems and try again.",
        "lint.sh:2:10 other generic SC2045 - | Iterating over ls output is fragile. Use globs.",
        ],
    );
}

#[test]
fn eslint_warnings_count_when_max_warnings_failed_the_check() {
    check(
        "eslint/max-warnings.txt",
        "/tmp/fx/eslint",
        "npx eslint --max-warnings 0 warn",
        &["warn/w.js:1:1 lint eslint no-console - | Unexpected console statement"],
    );
}

#[test]
fn pytest_short_summary_alone_still_names_the_tests() {
    check(
        "pytest/tb-no.txt",
        "/tmp/fx/py",
        "python -m pytest -q --tb=no test_calc.py",
        &[
            "test_calc.py:-:- test pytest AssertionError TestCalc.test_add | AssertionError: 5 != 4",
            "test_calc.py:-:- test pytest ZeroDivisionError TestCalc.test_div | ZeroDivisionError: division by zero",
            "test_calc.py:-:- test pytest - test_plain_assert | assert 3 == 2",
        ],
    );
}

#[test]
fn environment_logs_yield_compile_failures_without_files_or_nothing() {
    let linker = "-:-:- compile cargo - - | linker `nonexistent` not found";
    check(
        "env/cargo-build-missing-linker.txt",
        "/tmp/fx/rustbin",
        "cargo build",
        &[linker],
    );
    check(
        "env/cargo-build-missing-linker-json.txt",
        "/tmp/fx/rustbin",
        "cargo build",
        &[linker],
    );
    for name in [
        "env/gcc-missing-lib.txt",
        "env/python-no-pytest.txt",
        "env/sh-not-found.txt",
    ] {
        check(name, "/tmp/fx", "sh -c check", &[]);
    }
}

#[test]
fn the_signature_survives_a_shifted_line_and_changed_values() {
    use salve_engine::fix::failures::signature;
    let before = CheckResult::from_log(
        "/tmp/a",
        Status::Exited { code: 101 },
        fixture("cargo/test-text.txt"),
    );
    let shifted = String::from_utf8(fixture("cargo/test-text.txt"))
        .unwrap()
        .replace("src/lib.rs:11:9", "src/lib.rs:12:9")
        .replace("left: 5", "left: 6");
    let after = CheckResult::from_log("/tmp/b", Status::Exited { code: 101 }, shifted.into());
    let command = vec!["cargo".to_owned(), "test".to_owned()];
    let (a, b) = (extract(&command, &before), extract(&command, &after));
    assert_ne!(a, b);
    assert_eq!(signature(&a), signature(&b));
}
