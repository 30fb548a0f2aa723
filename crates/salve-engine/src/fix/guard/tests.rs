//! The guard on realistic repairs in Rust, Python, TypeScript and Go. Diffs are rendered by
//! `salve_patch::unified_diff` from before/after texts, as salve's apply records them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use salve_patch::unified_diff;

use super::*;

fn d(path: &str, old: &str, new: &str) -> String {
    unified_diff(path, path, old, new)
}

fn run(diff: &str, check: &[&str]) -> Vec<Finding> {
    let options = GuardOptions {
        check_command: check.iter().map(|s| s.to_string()).collect(),
        allow: Vec::new(),
        failure_output: String::new(),
    };
    inspect(diff, Path::new("/nonexistent-root"), &options)
}

fn rules(findings: &[Finding]) -> Vec<GuardRule> {
    findings.iter().map(|f| f.rule).collect()
}

const RUST_TESTS: &str = "\
pub fn add(a: u32, b: u32) -> u32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn adds_zero() {
        assert_eq!(add(0, 3), 3);
    }
}
";

#[test]
fn rust_test_deleted() {
    let new = RUST_TESTS.replace(
        "    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 3), 3);\n    }\n",
        "",
    );
    let f = run(&d("src/lib.rs", RUST_TESTS, &new), &["cargo", "test"]);
    assert!(rules(&f).contains(&GuardRule::DeletesTest), "{f:?}");
    let del = f.iter().find(|f| f.rule == GuardRule::DeletesTest).unwrap();
    assert!(del.detail.contains("adds_zero"), "{del:?}");
    assert_eq!(del.line, Some(15));
}

#[test]
fn rust_test_attribute_removed_is_a_deleted_test() {
    let new = RUST_TESTS.replacen("    #[test]\n    fn adds()", "    fn adds()", 1);
    let f = run(&d("src/lib.rs", RUST_TESTS, &new), &["cargo", "test"]);
    assert_eq!(rules(&f), vec![GuardRule::DeletesTest], "{f:?}");
}

#[test]
fn rust_ignore_added() {
    let new = RUST_TESTS.replace(
        "    #[test]\n    fn adds()",
        "    #[test]\n    #[ignore]\n    fn adds()",
    );
    let f = run(&d("src/lib.rs", RUST_TESTS, &new), &["cargo", "test"]);
    assert_eq!(rules(&f), vec![GuardRule::SkipsTest], "{f:?}");
    assert_eq!(f[0].line, Some(10));
}

#[test]
fn rust_assertion_weakened_or_made_trivial() {
    let weaker = RUST_TESTS.replace("assert_eq!(add(2, 2), 4);", "assert!(add(2, 2) > 0);");
    // `>` compares: a value check replaced by a value check is fine.
    assert!(run(&d("src/lib.rs", RUST_TESTS, &weaker), &["cargo"]).is_empty());

    let weaker = RUST_TESTS.replace(
        "assert_eq!(add(2, 2), 4);",
        "assert!(add(2, 2).is_power_of_two());",
    );
    let f = run(&d("src/lib.rs", RUST_TESTS, &weaker), &["cargo"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");
    assert!(f[0].detail.contains("weaker"));

    let trivial = RUST_TESTS.replace("assert_eq!(add(2, 2), 4);", "assert!(true);");
    let f = run(&d("src/lib.rs", RUST_TESTS, &trivial), &["cargo"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");
    assert!(f[0].detail.contains("always passes"));

    let same = RUST_TESTS.replace(
        "assert_eq!(add(2, 2), 4);",
        "assert_eq!(add(2, 2), add(2, 2));",
    );
    let f = run(&d("src/lib.rs", RUST_TESTS, &same), &["cargo"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");
}

#[test]
fn rust_assertion_removed() {
    let new = RUST_TESTS.replace(
        "        assert_eq!(add(2, 2), 4);\n",
        "        let _ = add(2, 2);\n",
    );
    let f = run(&d("src/lib.rs", RUST_TESTS, &new), &["cargo", "test"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");
    assert!(f[0].detail.contains("removes 1 assertion"));
}

#[test]
fn rust_allow_added_and_iterator_skip_is_not_a_skipped_test() {
    let old = "pub fn rest(v: &[u32]) -> Vec<u32> {\n    v.to_vec()\n}\n";
    let new = "#[allow(dead_code)]\npub fn rest(v: &[u32]) -> Vec<u32> {\n    v.iter().skip(1).copied().collect()\n}\n";
    let f = run(&d("src/lib.rs", old, new), &["cargo", "clippy"]);
    assert_eq!(rules(&f), vec![GuardRule::SuppressesFailure], "{f:?}");
    assert_eq!(f[0].line, Some(1));
}

#[test]
fn cargo_lints_section_counts_only_for_cargo_checks() {
    let old = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n\n[lints.clippy]\nunwrap_used = \"deny\"\n";
    let lints = old.replace("unwrap_used = \"deny\"", "unwrap_used = \"allow\"");
    let f = run(
        &d("Cargo.toml", old, &lints),
        &["cargo", "clippy", "--", "-D", "warnings"],
    );
    assert_eq!(rules(&f), vec![GuardRule::EditsCheckConfig], "{f:?}");
    assert!(f[0].detail.contains("lints.clippy"), "{f:?}");
    assert!(run(&d("Cargo.toml", old, &lints), &["pytest"]).is_empty());

    let deps = old.replace("serde = \"1\"", "serde = \"1.0.200\"");
    assert!(run(&d("Cargo.toml", old, &deps), &["cargo", "test"]).is_empty());
}

const PY_TEST: &str = "\
import pytest
from calc import add


def test_add():
    assert add(2, 2) == 4


def test_add_negative():
    assert add(-1, -1) == -2
";

#[test]
fn python_skips() {
    for marker in [
        "@pytest.mark.skip(reason=\"flaky\")",
        "@pytest.mark.skipif(True, reason=\"later\")",
        "@pytest.mark.xfail",
    ] {
        let new = PY_TEST.replace("def test_add():", &format!("{marker}\ndef test_add():"));
        let f = run(&d("tests/test_calc.py", PY_TEST, &new), &["pytest"]);
        assert_eq!(rules(&f), vec![GuardRule::SkipsTest], "{marker}: {f:?}");
    }
}

#[test]
fn python_assertion_made_trivial_or_weaker() {
    let new = PY_TEST.replace("assert add(2, 2) == 4", "assert True");
    let f = run(&d("tests/test_calc.py", PY_TEST, &new), &["pytest"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");

    let old = "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n";
    let new = old.replace(
        "self.assertEqual(add(2, 2), 4)",
        "self.assertIsNotNone(add(2, 2))",
    );
    let f = run(
        &d("tests/test_t.py", old, &new),
        &["python", "-m", "unittest"],
    );
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");

    let new = PY_TEST.replace("assert add(2, 2) == 4", "assert add(2, 2)");
    let f = run(&d("tests/test_calc.py", PY_TEST, &new), &["pytest"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");
}

#[test]
fn python_test_file_deleted_and_noqa() {
    let del = unified_diff("tests/test_calc.py", "/dev/null", PY_TEST, "");
    let f = run(&del, &["pytest"]);
    assert!(rules(&f).contains(&GuardRule::DeletesTest), "{f:?}");
    assert!(f.iter().any(|f| f.detail == "deletes a test file"));

    let old = "import os\n\nx = 1\n";
    let new = "import os  # noqa: F401\n\nx = 1\n";
    let f = run(&d("calc.py", old, new), &["ruff", "check"]);
    assert_eq!(rules(&f), vec![GuardRule::SuppressesFailure]);
}

#[test]
fn pyproject_pytest_settings_but_not_dependencies() {
    let old = "[project]\nname = \"calc\"\ndependencies = []\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n";
    let opts = old.replace(
        "addopts = \"-q\"",
        "addopts = \"-q --deselect tests/test_calc.py::test_add\"",
    );
    let f = run(
        &d("pyproject.toml", old, &opts),
        &["python", "-m", "pytest"],
    );
    assert_eq!(rules(&f), vec![GuardRule::EditsCheckConfig], "{f:?}");
    let deps = old.replace("dependencies = []", "dependencies = [\"attrs\"]");
    assert!(run(&d("pyproject.toml", old, &deps), &["pytest"]).is_empty());
}

const TS_TEST: &str = "\
import { add } from './add';

describe('add', () => {
  it('adds', () => {
    expect(add(2, 2)).toBe(4);
  });
});
";

#[test]
fn typescript_skips() {
    for (from, to) in [
        ("  it('adds'", "  it.skip('adds'"),
        ("describe('add'", "describe.skip('add'"),
        ("  it('adds'", "  xit('adds'"),
    ] {
        let new = TS_TEST.replace(from, to);
        let f = run(&d("src/add.test.ts", TS_TEST, &new), &["npx", "jest"]);
        assert!(rules(&f).contains(&GuardRule::SkipsTest), "{to}: {f:?}");
    }
    // `exit(` is not `xit(`.
    let old = "main();\n";
    let new = "main();\nprocess.exit(1);\n";
    assert!(run(&d("src/cli.ts", old, new), &["npx", "tsc"]).is_empty());
}

#[test]
fn typescript_weaker_matcher_ts_ignore_and_eslint_disable() {
    let new = TS_TEST.replace(".toBe(4)", ".toBeDefined()");
    let f = run(&d("src/add.test.ts", TS_TEST, &new), &["npm", "test"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");

    let old = "export const n: number = load();\n";
    let new = "// @ts-ignore\nexport const n: number = load();\n";
    let f = run(&d("src/n.ts", old, new), &["npx", "tsc", "--noEmit"]);
    assert_eq!(rules(&f), vec![GuardRule::SuppressesFailure]);
    let new = "/* eslint-disable */\nexport const n: number = load();\n";
    let f = run(&d("src/n.ts", old, new), &["npx", "eslint", "."]);
    assert_eq!(rules(&f), vec![GuardRule::SuppressesFailure]);
}

#[test]
fn tsconfig_counts_for_tsc() {
    let old = "{\n  \"compilerOptions\": {\n    \"strict\": true\n  }\n}\n";
    let new = old.replace("true", "false");
    let f = run(&d("tsconfig.json", old, &new), &["npx", "tsc", "--noEmit"]);
    assert_eq!(rules(&f), vec![GuardRule::EditsCheckConfig]);
    assert!(run(&d("tsconfig.json", old, &new), &["cargo", "test"]).is_empty());
}

const GO_TEST: &str = "\
package calc

import \"testing\"

func TestAdd(t *testing.T) {
\tif got := Add(2, 2); got != 4 {
\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)
\t}
}

func TestSub(t *testing.T) {
\tif Sub(3, 1) != 2 {
\t\tt.Error(\"Sub\")
\t}
}
";

#[test]
fn go_skip_removed_fatal_deleted_test_and_nolint() {
    let new = GO_TEST.replace(
        "func TestAdd(t *testing.T) {\n",
        "func TestAdd(t *testing.T) {\n\tt.Skip(\"later\")\n",
    );
    let f = run(&d("calc_test.go", GO_TEST, &new), &["go", "test", "./..."]);
    assert_eq!(rules(&f), vec![GuardRule::SkipsTest], "{f:?}");

    let new = GO_TEST.replace("\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n", "");
    let f = run(&d("calc_test.go", GO_TEST, &new), &["go", "test"]);
    assert_eq!(rules(&f), vec![GuardRule::WeakensAssertion], "{f:?}");

    let start = GO_TEST.find("func TestSub").unwrap();
    let new = GO_TEST[..start].trim_end().to_owned() + "\n";
    let f = run(&d("calc_test.go", GO_TEST, &new), &["go", "test"]);
    assert!(rules(&f).contains(&GuardRule::DeletesTest), "{f:?}");

    let old = "func f() error {\n\treturn g()\n}\n";
    let new = "func f() error {\n\treturn g() //nolint:wrapcheck\n}\n";
    let f = run(&d("f.go", old, new), &["golangci-lint", "run"]);
    assert_eq!(rules(&f), vec![GuardRule::SuppressesFailure]);
}

#[test]
fn ci_and_make_configuration() {
    let old = "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo test\n";
    let new = old.replace(
        "      - run: cargo test\n",
        "      - run: cargo test\n        continue-on-error: true\n",
    );
    let f = run(
        &d(".github/workflows/ci.yml", old, &new),
        &["cargo", "test"],
    );
    assert_eq!(
        rules(&f),
        vec![GuardRule::SuppressesFailure, GuardRule::EditsCheckConfig]
    );

    let old = "test:\n\tpytest -q\n";
    let new = "test:\n\tpytest -q || true\n";
    let f = run(&d("Makefile", old, new), &["make", "test"]);
    assert_eq!(
        rules(&f),
        vec![GuardRule::SuppressesFailure, GuardRule::EditsCheckConfig]
    );
    // A Makefile is not the configuration of a cargo check.
    let new = "test:\n\tpytest -q -x\n";
    assert!(run(&d("Makefile", old, new), &["cargo", "test"]).is_empty());
    // A script the command runs is its configuration.
    let f = run(
        &d("scripts/check.sh", "cargo test\n", "cargo build\n"),
        &["./scripts/check.sh"],
    );
    assert_eq!(rules(&f), vec![GuardRule::EditsCheckConfig]);
}

#[test]
fn paths_outside_the_repository_or_the_allow_list() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("src")).unwrap();
    let escape = "--- a/../outside.txt\n+++ b/../outside.txt\n@@ -1 +1 @@\n-a\n+b\n";
    let f = inspect(escape, tmp.path(), &GuardOptions::default());
    assert_eq!(rules(&f), vec![GuardRule::OutsidePaths]);
    let git = d(".git/config", "a\n", "b\n");
    assert_eq!(
        rules(&inspect(&git, tmp.path(), &GuardOptions::default())),
        vec![GuardRule::OutsidePaths]
    );

    let options = GuardOptions {
        check_command: vec!["cargo".into()],
        allow: vec!["src".into()],
        failure_output: String::new(),
    };
    let inside = d("src/lib.rs", "a\n", "b\n");
    assert!(inspect(&inside, tmp.path(), &options).is_empty());
    let outside = d("build.rs", "a\n", "b\n");
    let f = inspect(&outside, tmp.path(), &options);
    assert_eq!(rules(&f), vec![GuardRule::OutsidePaths]);
    assert!(f[0].detail.contains("allowed"));
    // An absolute allow path inside the tree works too.
    let options = GuardOptions {
        allow: vec![tmp.path().canonicalize().unwrap().join("build.rs")],
        ..options
    };
    assert!(inspect(&outside, tmp.path(), &options).is_empty());
}

#[test]
fn new_tests_renames_and_moves_are_not_findings() {
    // A new test with an assertion.
    let new = RUST_TESTS.replace(
        "    #[test]\n    fn adds_zero()",
        "    #[test]\n    fn adds_large() {\n        assert_eq!(add(1 << 20, 1), (1 << 20) + 1);\n    }\n\n    #[test]\n    fn adds_zero()",
    );
    assert!(run(&d("src/lib.rs", RUST_TESTS, &new), &["cargo", "test"]).is_empty());
    // A renamed test.
    let new = PY_TEST.replace("def test_add_negative", "def test_add_two_negatives");
    assert!(run(&d("tests/test_calc.py", PY_TEST, &new), &["pytest"]).is_empty());
    let new = RUST_TESTS.replace("fn adds_zero", "fn adds_zero_left");
    assert!(run(&d("src/lib.rs", RUST_TESTS, &new), &["cargo", "test"]).is_empty());
    // An assertion moved down, and an expected value corrected (not weaker).
    let old = "def test_x():\n    assert f(1) == 1\n    y = g()\n    assert y == 2\n";
    let new = "def test_x():\n    y = g()\n    assert y == 2\n    assert f(1) == 1\n";
    assert!(run(&d("tests/test_x.py", old, new), &["pytest"]).is_empty());
    let new = GO_TEST
        .replace("got != 4", "got != 5")
        .replace("want 4", "want 5");
    assert!(run(&d("calc_test.go", GO_TEST, &new), &["go", "test"]).is_empty());
    // A test moved to another file.
    let start = GO_TEST.find("func TestSub").unwrap();
    let moved = d(
        "calc_test.go",
        GO_TEST,
        &(GO_TEST[..start].trim_end().to_owned() + "\n"),
    ) + &unified_diff(
        "/dev/null",
        "sub_test.go",
        "",
        &format!(
            "package calc\n\nimport \"testing\"\n\n{}",
            &GO_TEST[start..]
        ),
    );
    assert!(
        run(&moved, &["go", "test"]).is_empty(),
        "{:?}",
        run(&moved, &["go", "test"])
    );
}

#[test]
fn the_diff_reader_keeps_removed_lines_that_look_like_headers() {
    let diff = "diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- a comment\n select 1;\n";
    let files = diff::parse(diff);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].hunks[0].lines.len(), 2);
    let renamed = "diff --git a/tests/a_test.go b/tests/b_test.go\nsimilarity index 100%\nrename from tests/a_test.go\nrename to tests/b_test.go\n";
    let files = diff::parse(renamed);
    assert_eq!(files[0].old.as_deref(), Some("tests/a_test.go"));
    assert_eq!(files[0].new.as_deref(), Some("tests/b_test.go"));
    assert!(run(renamed, &["go", "test"]).is_empty());
}

#[test]
fn findings_serialize_for_front_ends() {
    let f = Finding {
        rule: GuardRule::SkipsTest,
        path: "a.py".into(),
        line: Some(3),
        detail: "x".into(),
    };
    let json = serde_json::to_value(&f).unwrap();
    assert_eq!(json["rule"], "skips_test");
    assert_eq!(f.to_string(), "a.py:3: skips_test: x");
}
