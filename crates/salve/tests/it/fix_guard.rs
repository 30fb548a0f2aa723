//! The fix guard reads what a repair does to a test (issue 24 §2, §4), under a check that does
//! not name the test file: the expected value set to what the failing run printed is refused,
//! and a correct repair of a test file named by the check is applied and committed.

use crate::fix::{calls, fix, python_project, scripted};
use crate::support::Tree;

#[test]
fn the_expected_value_set_to_the_printed_output_is_refused_under_a_runner_script() {
    // `assertEqual(add(2, 3), 5)` fails with `-1 != 5`; the gamed repair expects -1.
    let gamed = "```diff\n--- a/test_calc.py\n+++ b/test_calc.py\n@@ -7,2 +7,2 @@\n     def test_add(self):\n-        self.assertEqual(add(2, 3), 5)\n+        self.assertEqual(add(2, 3), -1)\n```\nConfidence: 0.9\n";
    let tree = python_project(&[gamed]);
    tree.write("run-tests.sh", "python3 -m unittest -q\n");
    let test_file = tree.read("test_calc.py");
    let out = fix(&tree, &["--attempts", "1", "--", "sh", "run-tests.sh"]);
    out.code(1);
    let json = out.json();
    assert_eq!(json["status"], "guard_rejected", "{}", out.stdout);
    let finding = &json["guard"][0];
    assert_eq!(finding["rule"], "weakens_assertion", "{}", out.stdout);
    assert!(
        finding["detail"].as_str().unwrap().contains("`-1`"),
        "{}",
        out.stdout
    );
    assert_eq!(tree.read("test_calc.py"), test_file, "nothing was written");
}

#[test]
fn a_typo_in_the_test_files_own_import_is_repaired_and_committed() {
    let tree = Tree::git();
    let fixed = "```diff\n--- a/test_core.py\n+++ b/test_core.py\n@@ -1,3 +1,3 @@\n import unittest\n \n-from pkg.cor import double\n+from pkg.core import double\n```\nConfidence: 0.9\n";
    let providers = scripted(&tree, &[fixed]);
    tree.write("pkg/__init__.py", "")
        .write("pkg/core.py", "def double(x):\n    return 2 * x\n")
        .write(
            "test_core.py",
            "import unittest\n\nfrom pkg.cor import double\n\n\nclass DoubleTest(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n",
        )
        .write(".gitignore", "__pycache__\n")
        .write("salve.toml", providers)
        .commit("a test with a typo in its import")
        .trust();
    let out = fix(&tree, &["--", "python3", "-m", "unittest", "test_core.py"]);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "repaired", "{}", out.stdout);
    assert_eq!(json["guard"], serde_json::json!([]), "{}", out.stdout);
    assert_eq!(calls(&tree), 1);
    assert!(json["commit"].is_string(), "{}", out.stdout);
    assert!(tree
        .git_cmd(&["show", "HEAD:test_core.py"])
        .contains("from pkg.core import double"));
}
