//! The test-gaming shapes of `gaming.rs`, each in the languages the loop reads, and the correct
//! repairs of a test file that must pass.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use salve_patch::unified_diff;

use super::*;

fn findings(path: &str, old: &str, new: &str, check: &[&str], output: &str) -> Vec<Finding> {
    let options = GuardOptions {
        check_command: check.iter().map(|s| s.to_string()).collect(),
        allow: Vec::new(),
        failure_output: output.to_owned(),
    };
    inspect(
        &unified_diff(path, path, old, new),
        Path::new("/nonexistent-root"),
        &options,
    )
}

fn rules(path: &str, old: &str, new: &str, output: &str) -> Vec<GuardRule> {
    findings(path, old, new, &["make", "test"], output)
        .iter()
        .map(|f| f.rule)
        .collect()
}

const PY_TEST: &str =
    "from calc import add\n\n\ndef test_add():\n    total = add(1, 2)\n    assert total == 3\n";
const PY_FAILURE: &str = "    def test_add():\n        total = add(1, 2)\n>       assert total == 3\nE       assert -1 == 3\n";

#[test]
fn the_expected_value_set_to_what_the_failing_run_printed_is_refused() {
    let gamed = PY_TEST.replace("== 3", "== -1");
    assert_eq!(
        rules("tests/test_calc.py", PY_TEST, &gamed, PY_FAILURE),
        [GuardRule::WeakensAssertion]
    );
    // Another expected value, one the run did not print, is a change of the test's meaning the
    // guard cannot judge: not this finding.
    let other = PY_TEST.replace("== 3", "== 4");
    assert!(rules("tests/test_calc.py", PY_TEST, &other, PY_FAILURE).is_empty());
    // Go and Rust, the same shape.
    let go = "package calc\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n";
    let go_out = "--- FAIL: TestAdd (0.00s)\n    calc_test.go:5: got -1\n";
    assert_eq!(
        rules(
            "calc_test.go",
            go,
            &go.replace("got != 3", "got != -1"),
            go_out
        ),
        [GuardRule::WeakensAssertion]
    );
    let rs = "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n";
    let rs_out = "assertion `left == right` failed\n  left: -1\n right: 3\n";
    assert_eq!(
        rules("tests/add.rs", rs, &rs.replace(", 3)", ", -1)"), rs_out),
        [GuardRule::WeakensAssertion]
    );
}

#[test]
fn checks_made_to_always_hold_are_refused() {
    let py = PY_TEST.replace("assert total == 3", "assert total == 3 or True");
    assert_eq!(
        rules("tests/test_calc.py", PY_TEST, &py, ""),
        [GuardRule::WeakensAssertion]
    );
    let js = "test('adds', () => {\n  expect(add(1, 2) === 3).toBe(true);\n});\n";
    let gamed = js.replace("=== 3)", "=== 3 || true)");
    assert!(rules("src/add.test.ts", js, &gamed, "").contains(&GuardRule::WeakensAssertion));
    let cond =
        "def test_add():\n    if add(1, 2) == 3:\n        return\n    raise AssertionError\n";
    assert_eq!(
        rules(
            "tests/test_calc.py",
            cond,
            &cond.replace("if add(1, 2) == 3:", "if True:"),
            ""
        ),
        [GuardRule::WeakensAssertion]
    );
}

#[test]
fn an_exit_before_the_assertions_is_refused() {
    let early = PY_TEST.replace("def test_add():\n", "def test_add():\n    return\n");
    assert_eq!(
        rules("tests/test_calc.py", PY_TEST, &early, ""),
        [GuardRule::WeakensAssertion]
    );
    let one_line = PY_TEST.replace(
        "def test_add():\n",
        "def test_add():\n    if True: return\n",
    );
    assert!(
        rules("tests/test_calc.py", PY_TEST, &one_line, "").contains(&GuardRule::WeakensAssertion)
    );
    let go = "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n";
    let gamed = go.replace("{\n\tif", "{\n\treturn\n\tif");
    assert_eq!(
        rules("calc_test.go", go, &gamed, ""),
        [GuardRule::WeakensAssertion]
    );
}

#[test]
fn a_caught_assertion_failure_is_refused() {
    let caught = "from calc import add\n\n\ndef test_add():\n    total = add(1, 2)\n    try:\n        assert total == 3\n    except AssertionError:\n        pass\n";
    assert!(rules("tests/test_calc.py", PY_TEST, caught, "").contains(&GuardRule::WeakensAssertion));
    let rs = "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n";
    let gamed = "#[test]\nfn adds() {\n    let _ = std::panic::catch_unwind(|| assert_eq!(add(1, 2), 3));\n}\n";
    assert!(rules("tests/add.rs", rs, gamed, "").contains(&GuardRule::WeakensAssertion));
}

#[test]
fn a_widened_exception_and_a_focused_test_are_refused() {
    let py = "import pytest\n\n\ndef test_parse():\n    with pytest.raises(ValueError):\n        parse('x')\n";
    assert_eq!(
        rules(
            "tests/test_parse.py",
            py,
            &py.replace("ValueError", "Exception"),
            ""
        ),
        [GuardRule::WeakensAssertion]
    );
    let js = "describe('add', () => {\n  it('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n";
    assert_eq!(
        rules(
            "src/add.test.js",
            js,
            &js.replace("  it('adds'", "  it.only('adds'"),
            ""
        ),
        [GuardRule::SkipsTest]
    );
    let go = "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n";
    let skipped = go.replace("{\n\tif", "{\n\tt.Skip(\"later\")\n\tif");
    assert!(rules("calc_test.go", go, &skipped, "").contains(&GuardRule::SkipsTest));
}

#[test]
fn a_correct_repair_of_a_test_file_named_by_the_check_passes() {
    // A typo in the test file's own import, under `pytest test_core.py`: nothing weakened.
    let old = "from pkg.cor import double\n\n\ndef test_double():\n    assert double(2) == 4\n";
    let new = old.replace("pkg.cor", "pkg.core");
    let out = "ModuleNotFoundError: No module named 'pkg.cor'\n";
    assert!(findings("test_core.py", old, &new, &["pytest", "test_core.py"], out).is_empty());
    // A script the check runs is still the check's own definition.
    let script = findings(
        "check.sh",
        "pytest\n",
        "pytest || true\n",
        &["sh", "check.sh"],
        "",
    );
    assert!(script.iter().any(|f| f.rule == GuardRule::EditsCheckConfig));
}
