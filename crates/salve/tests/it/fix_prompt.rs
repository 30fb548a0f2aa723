//! The repair prompt shows the code the failure ran through (issue 24 §5): for a failing
//! assertion whose bug is in `pkg/core.py`, the prompt holds `pkg/core.py`, reached through the
//! test's import; for an error raised in the code, the traceback's frames in the repository.

use crate::fix::{fix, scripted};
use crate::support::Tree;

fn prompts(tree: &Tree) -> Vec<String> {
    let dir = tree.outside().join("provider");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("prompt.")
        })
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

fn project(core: &str, test: &str) -> Tree {
    let tree = Tree::git();
    let providers = scripted(&tree, &["No idea.\n\nConfidence: 0.1\n"]);
    tree.write("pkg/__init__.py", "")
        .write("pkg/core.py", core)
        .write("tests/__init__.py", "")
        .write("tests/test_core.py", test)
        .write(".gitignore", "__pycache__\n")
        .write("salve.toml", providers)
        .commit("a bug in pkg/core.py")
        .trust();
    tree
}

const CHECK: [&str; 8] = [
    "--attempts",
    "1",
    "--",
    "python3",
    "-m",
    "unittest",
    "discover",
    "-q",
];

#[test]
fn a_failing_assertion_shows_the_module_the_test_imports() {
    let tree = project(
        "def double(x):\n    return x + x + 1\n",
        "import unittest\n\nfrom pkg.core import double\n\n\nclass DoubleTest(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n",
    );
    let out = fix(&tree, &CHECK);
    out.code(1);
    let prompt = prompts(&tree).join("\n");
    assert!(prompt.contains("tests/test_core.py"), "{prompt}");
    assert!(prompt.contains("pkg/core.py"), "{prompt}");
    assert!(prompt.contains("return x + x + 1"), "{prompt}");
}

#[test]
fn an_error_raised_in_the_code_shows_the_frame_there() {
    let tree = project(
        "def helper(x):\n    return x\n\n\ndef ratio(a, b):\n    # the bug: b is never checked\n    return a / b\n",
        "import unittest\n\nimport pkg.core as core\n\n\nclass RatioTest(unittest.TestCase):\n    def test_ratio(self):\n        self.assertEqual(core.ratio(1, 0), 0)\n",
    );
    let out = fix(&tree, &CHECK);
    out.code(1);
    let prompt = prompts(&tree).join("\n");
    // The failure is read at the innermost frame, pkg/core.py line 7; the frame in the test
    // that called it is shown too.
    assert!(prompt.contains("`pkg/core.py` around line 7"), "{prompt}");
    assert!(
        prompt.contains("`tests/test_core.py` around line 8 (a frame of the traceback)"),
        "{prompt}"
    );
    assert!(prompt.contains("return a / b"), "{prompt}");
}
