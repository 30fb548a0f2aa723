//! `salve fix` end to end: real projects made here (a Cargo crate, a Python package, shell
//! checks), the real binary, and a scripted provider (a real child process speaking the command
//! provider protocol: the prompt on stdin, the reply on stdout) that counts its calls.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::{Run, Tree};

/// A scripted provider: call N prints `replies/N` (or `replies/last` when there is none) and
/// counts itself in `calls`. Returns the provider section for `salve.toml`.
pub(crate) fn scripted(tree: &Tree, replies: &[&str]) -> String {
    let dir = tree.outside().join("provider");
    std::fs::create_dir_all(dir.join("replies")).unwrap();
    for (i, reply) in replies.iter().enumerate() {
        std::fs::write(dir.join("replies").join((i + 1).to_string()), reply).unwrap();
    }
    if let Some(last) = replies.last() {
        std::fs::write(dir.join("replies/last"), last).unwrap();
    }
    let script = dir.join("provider.sh");
    std::fs::write(
        &script,
        "cat > \"$1/prompt.$(date +%s%N)\"\nn=$(( $(cat \"$1/calls\" 2>/dev/null || echo 0) + 1 ))\necho $n > \"$1/calls\"\nif [ -f \"$1/replies/$n\" ]; then cat \"$1/replies/$n\"; else cat \"$1/replies/last\"; fi\n",
    )
    .unwrap();
    format!(
        "[providers.script]\nkind = \"command\"\ncommand = [\"sh\", {:?}, {:?}]\ntimeout_secs = 30\n\n[chains]\ndefault = [\"script\"]\nquality = [\"script\"]\n",
        script.to_string_lossy(),
        dir.to_string_lossy()
    )
}

/// How many times the scripted provider was called.
pub(crate) fn calls(tree: &Tree) -> u32 {
    std::fs::read_to_string(tree.outside().join("provider/calls"))
        .map(|s| s.trim().parse().unwrap())
        .unwrap_or(0)
}

/// One target directory for every Cargo project of these tests, so each builds in a moment.
fn cargo_target() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fix-projects")
}

pub(crate) fn fix(tree: &Tree, args: &[&str]) -> Run {
    let home = tree.outside().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = tree.salve();
    cmd.env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env("CARGO_TARGET_DIR", cargo_target())
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["--json", "fix"])
        .args(args);
    Run::from(cmd.output().unwrap())
}

/// `salve fix --proposed DIFF -- python3 -m unittest -q`, with the proposal `diff` written to
/// `name` outside the work tree.
fn fix_proposed(tree: &Tree, name: &str, diff: &str) -> Run {
    let proposed = tree.outside().join(name);
    std::fs::write(&proposed, diff).unwrap();
    fix(
        tree,
        &[
            "--proposed",
            proposed.to_str().unwrap(),
            "--",
            "python3",
            "-m",
            "unittest",
            "-q",
        ],
    )
}

const BROKEN_LIB: &str = "pub fn one() -> u32 {\n    \"1\"\n}\n";
const FIXED_LIB: &str = "pub fn one() -> u32 {\n    1\n}\n";
const LIB_FIX: &str = "The function returns a string where a u32 is expected.\n\n```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn one() -> u32 {\n-    \"1\"\n+    1\n }\n```\n\nConfidence: 0.9\n";

/// A Cargo crate whose build fails with a type error, committed, with `providers` configured.
/// Each test names its crate: two builds of one crate name in the shared target directory
/// would overwrite each other's artifacts.
fn crate_with_type_error(name: &str, replies: &[&str]) -> Tree {
    let tree = Tree::git();
    let providers = scripted(&tree, replies);
    tree.write(
        "Cargo.toml",
        format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    )
    .write("src/lib.rs", BROKEN_LIB)
    .write(".gitignore", "target\nCargo.lock\n")
    .write("salve.toml", providers)
    .commit("a crate that does not build")
    .trust();
    tree
}

#[test]
fn a_type_error_is_healed_and_only_the_fix_is_committed() {
    let tree = crate_with_type_error("healed", &[LIB_FIX]);
    // The user's own work: staged, unstaged and untracked.
    tree.write("README.md", "staged by the user\n");
    tree.git_cmd(&["add", "README.md"]);
    tree.write(
        "salve.toml",
        format!("{}\n# unstaged\n", tree.read("salve.toml")),
    );
    tree.write("notes.txt", "untracked\n");
    let staged = tree.git_cmd(&["diff", "--cached"]);
    let unstaged = tree.git_cmd(&["diff"]);

    let out = fix(&tree, &["--", "cargo", "build"]);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "repaired", "{}", out.stdout);
    assert_eq!(json["green"], true);
    assert_eq!(json["touched"], serde_json::json!(["src/lib.rs"]));
    assert_eq!(json["checks"][0]["failures"][0]["code"], "E0308");
    assert_eq!(json["checks"][0]["class"]["class"], "code");
    assert_eq!(calls(&tree), 1);
    assert_eq!(tree.read("src/lib.rs"), FIXED_LIB);
    // The commit holds the fix alone, with the fixed message.
    assert_eq!(
        tree.git_cmd(&["diff", "--name-only", "HEAD^", "HEAD"]),
        "src/lib.rs\n"
    );
    assert_eq!(
        tree.git_cmd(&["log", "-1", "--format=%B"]),
        "fix(lib): make `cargo build` pass\n\nFailed tasks: cargo build\nLocal verification: passed\n\n"
    );
    assert_eq!(tree.git_cmd(&["diff", "--cached"]), staged);
    assert_eq!(tree.git_cmd(&["diff"]), unstaged);
    assert_eq!(tree.read("notes.txt"), "untracked\n");
    // The record: one fix run, its checks and the repair.
    let run = json["run"].as_str().unwrap();
    let show = tree.salve().args(["--json", "show", run]).output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(record["run"]["kind"], "fix");
    assert_eq!(record["run"]["status"], "repaired");
    assert_eq!(record["patch_sets"][0]["status"], "applied");
    assert!(
        record["attempts"].as_array().unwrap().len() >= 3,
        "{record}"
    );
}

#[test]
fn a_learned_rule_replays_without_the_model_and_production_makes_no_calls() {
    let tree = crate_with_type_error("learned", &[LIB_FIX]);
    fix(&tree, &["--no-commit", "--", "cargo", "build"]).code(0);
    assert_eq!(calls(&tree), 1);
    // The same failure again: the learned rule repairs it.
    tree.write("src/lib.rs", BROKEN_LIB);
    let again = fix(&tree, &["--no-commit", "--", "cargo", "build"]);
    again.code(0);
    assert_eq!(again.json()["status"], "rule_applied", "{}", again.stdout);
    assert_eq!(calls(&tree), 1, "the rule replays without a provider call");
    // Production: pinned rules only, never the model.
    tree.write("src/lib.rs", BROKEN_LIB);
    let prod = fix(
        &tree,
        &[
            "--no-commit",
            "--strictness",
            "production",
            "--",
            "cargo",
            "build",
        ],
    );
    prod.code(1);
    assert_eq!(prod.json()["status"], "blocked_by_strictness");
    assert_eq!(calls(&tree), 1);
    assert_eq!(
        tree.read("src/lib.rs"),
        BROKEN_LIB,
        "a stop restores the tree"
    );
    // Pinned, the rule is the repository's, and production replays it.
    let listed = tree
        .salve()
        .args(["--json", "rules", "list"])
        .output()
        .unwrap();
    let rules: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rules.as_array().unwrap().len(), 1, "{rules}");
    assert_eq!(rules[0]["origin"], "learned");
    let id = rules[0]["id"].as_str().unwrap();
    tree.salve()
        .args(["rules", "pin", id, "--name", "string-for-u32"])
        .assert()
        .success();
    assert!(tree.exists(".salve/rules/string-for-u32.toml"));
    let pinned = fix(
        &tree,
        &[
            "--no-commit",
            "--strictness",
            "production",
            "--",
            "cargo",
            "build",
        ],
    );
    pinned.code(0);
    assert_eq!(pinned.json()["status"], "rule_applied", "{}", pinned.stdout);
    assert_eq!(calls(&tree), 1);
}

/// A Python package whose unit test fails on an assertion.
pub(crate) fn python_project(replies: &[&str]) -> Tree {
    let tree = Tree::git();
    let providers = scripted(&tree, replies);
    tree.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n",
        )
        .write(".gitignore", "__pycache__\n")
        .write("salve.toml", providers)
        .commit("a failing test")
        .trust();
    tree
}

pub(crate) const PY_FIX: &str = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n```\nConfidence: 0.95\n";
const PY_NOOP: &str = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n+    # adds\n     return a - b\n```\nConfidence: 0.8\n";

#[test]
fn a_failing_assertion_is_repaired_after_an_attempt_that_did_not_help() {
    let tree = python_project(&[PY_NOOP, PY_FIX]);
    let out = fix(&tree, &["--", "python3", "-m", "unittest", "-q"]);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "repaired", "{}", out.stdout);
    assert_eq!(json["attempts"][0]["verdict"], "not_better");
    assert_eq!(json["attempts"][1]["verdict"], "green");
    assert_eq!(calls(&tree), 2);
    // The unhelpful attempt was undone before the second.
    assert_eq!(tree.read("calc.py"), "def add(a, b):\n    return a + b\n");
    assert_eq!(
        tree.git_cmd(&["diff", "--name-only", "HEAD^", "HEAD"]),
        "calc.py\n"
    );
}

#[test]
fn two_attempts_without_progress_stop_and_restore_the_tree() {
    let tree = python_project(&[PY_NOOP]);
    let out = fix(&tree, &["--", "python3", "-m", "unittest", "-q"]);
    out.code(1);
    assert_eq!(out.json()["status"], "no_progress", "{}", out.stdout);
    assert_eq!(calls(&tree), 2);
    assert_eq!(tree.read("calc.py"), "def add(a, b):\n    return a - b\n");
}

#[test]
fn the_attempt_limit_and_then_the_persisted_budget_stop_the_loop() {
    let tree = python_project(&[PY_NOOP]);
    let out = fix(
        &tree,
        &["--attempts", "1", "--", "python3", "-m", "unittest", "-q"],
    );
    out.code(1);
    assert_eq!(out.json()["status"], "exhausted", "{}", out.stdout);
    assert_eq!(calls(&tree), 1);
    // A second run on the same failure and branch: the budget is spent before any call.
    let again = fix(
        &tree,
        &["--attempts", "1", "--", "python3", "-m", "unittest", "-q"],
    );
    again.code(1);
    assert_eq!(
        again.json()["status"],
        "budget_exhausted",
        "{}",
        again.stdout
    );
    assert_eq!(calls(&tree), 1, "no provider call once the budget is spent");
    let status = tree
        .salve()
        .args(["--json", "fix", "--budget-status", "--attempts", "1"])
        .output()
        .unwrap();
    let counters: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(counters[0]["exhausted"], true, "{counters}");
    tree.salve()
        .args(["fix", "--reset-budget"])
        .assert()
        .success();
    let reset = fix(
        &tree,
        &["--attempts", "1", "--", "python3", "-m", "unittest", "-q"],
    );
    assert_eq!(reset.json()["status"], "exhausted");
    assert_eq!(calls(&tree), 2);
}

#[test]
fn a_repair_below_the_confidence_gate_is_not_applied() {
    let tree = python_project(&[&PY_FIX.replace("0.95", "0.3")]);
    let out = fix(&tree, &["--", "python3", "-m", "unittest", "-q"]);
    out.code(1);
    assert_eq!(
        out.json()["status"],
        "rejected_low_confidence",
        "{}",
        out.stdout
    );
    assert_eq!(tree.read("calc.py"), "def add(a, b):\n    return a - b\n");
}

#[test]
fn repairs_that_weaken_the_check_are_refused() {
    let delete = "```diff\n--- a/test_calc.py\n+++ b/test_calc.py\n@@ -6,3 +6,2 @@\n class AddTest(unittest.TestCase):\n-    def test_add(self):\n-        self.assertEqual(add(2, 3), 5)\n+    pass\n```\nConfidence: 0.9\n";
    let skip = "```diff\n--- a/test_calc.py\n+++ b/test_calc.py\n@@ -6,3 +6,4 @@\n class AddTest(unittest.TestCase):\n+    @unittest.skip(\"flaky\")\n     def test_add(self):\n         self.assertEqual(add(2, 3), 5)\n```\nConfidence: 0.9\n";
    let weaken = "```diff\n--- a/test_calc.py\n+++ b/test_calc.py\n@@ -7,2 +7,2 @@\n     def test_add(self):\n-        self.assertEqual(add(2, 3), 5)\n+        self.assertTrue(True)\n```\nConfidence: 0.9\n";
    let tree = python_project(&[delete, skip, weaken]);
    let test_file = tree.read("test_calc.py");
    let out = fix(&tree, &["--", "python3", "-m", "unittest", "-q"]);
    out.code(1);
    let json = out.json();
    assert_eq!(json["status"], "guard_rejected", "{}", out.stdout);
    let rules: Vec<&str> = json["guard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    for rule in ["deletes_test", "skips_test", "weakens_assertion"] {
        assert!(rules.contains(&rule), "{rule} not found in {rules:?}");
    }
    assert_eq!(tree.read("test_calc.py"), test_file, "nothing was written");
}

#[test]
fn a_missing_check_command_is_an_environment_failure_without_any_model_call() {
    let tree = python_project(&[PY_FIX]);
    let out = fix(&tree, &["--", "no-such-checker-xyz", "--all"]);
    out.code(1);
    let json = out.json();
    assert_eq!(json["status"], "environment_failure", "{}", out.stdout);
    assert_eq!(json["checks"][0]["class"]["class"], "environment");
    assert_eq!(calls(&tree), 0);
}

#[test]
fn proposed_fixes_are_applied_enhanced_or_rejected() {
    // Passes as it is.
    let tree = python_project(&[PY_FIX]);
    let out = fix_proposed(&tree, "proposed.diff", PY_FIX);
    out.code(0);
    assert_eq!(out.json()["status"], "proposed_applied", "{}", out.stdout);
    assert_eq!(calls(&tree), 0);
    assert!(tree
        .git_cmd(&["log", "-1", "--format=%B"])
        .contains("Local verification: passed"));

    // Helps, and the loop finishes it: two failing tests, the proposal fixes one.
    let tree = python_project(&[PY_FIX]);
    tree.write(
        "calc.py",
        "def add(a, b):\n    return a - b\n\n\ndef double(a):\n    return a\n",
    )
    .write(
        "test_double.py",
        "import unittest\n\nfrom calc import double\n\n\nclass DoubleTest(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n",
    )
    .commit("a second failing test");
    let partial = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -4,2 +4,2 @@\n \n def double(a):\n-    return a\n+    return a * 2\n```\n";
    let out = fix_proposed(&tree, "partial.diff", partial);
    out.code(0);
    assert_eq!(out.json()["status"], "proposed_enhanced", "{}", out.stdout);
    assert_eq!(calls(&tree), 1);
    assert!(tree
        .git_cmd(&["log", "-1", "--format=%B"])
        .contains("Local verification: enhanced"));

    // Does not apply: rejected, and the loop fixes it from scratch.
    let tree = python_project(&[PY_FIX]);
    let stale = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def subtract(a, b):\n-    return a + b\n+    return a - b\n```\n";
    let out = fix_proposed(&tree, "stale.diff", stale);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "proposed_rejected", "{}", out.stdout);
    assert_eq!(json["green"], true);
    assert_eq!(calls(&tree), 1);
}

#[test]
fn ci_mode_writes_a_step_summary() {
    let tree = python_project(&[PY_FIX]);
    let summary = tree.outside().join("summary.md");
    let home = tree.outside().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = tree
        .salve()
        .env("HOME", &home)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["fix", "--ci", "--", "python3", "-m", "unittest", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("salve fix: `repaired`"), "{md}");
    assert!(md.contains("+    return a + b"), "{md}");
    // The failing test is listed, and every fence and code span is balanced.
    assert!(md.contains("### Failing"), "{md}");
    assert!(md.contains("test_add"), "{md}");
    let fences = md.lines().filter(|l| l.starts_with("```")).count();
    assert_eq!(fences % 2, 0, "{md}");
}

/// Ctrl-C while the repair is being verified: the check's whole process tree is killed, the
/// tree is put back as it was, and the run is recorded as interrupted.
#[test]
fn sigint_mid_attempt_restores_the_tree_and_records_the_run_as_interrupted() {
    let fix_reply =
        "```diff\n--- a/app.txt\n+++ b/app.txt\n@@ -1 +1 @@\n-bad\n+good\n```\nConfidence: 0.9\n";
    let tree = Tree::git();
    let providers = scripted(&tree, &[fix_reply]);
    let started = tree.outside().join("verify-started");
    tree.write("app.txt", "bad\n")
        .write(
            "check.sh",
            format!(
                "if grep -q good app.txt; then touch {:?}; sleep 60; exit 0; fi\necho 'app.txt:1: error: the app is bad'\nexit 1\n",
                started.to_string_lossy()
            ),
        )
        .write("salve.toml", providers)
        .commit("start")
        .trust();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_salve"))
        .current_dir(&tree.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", tree.home())
        .env_remove("XDG_DATA_HOME")
        .args(["--json", "fix", "--", "sh", "check.sh"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&started);
    assert_eq!(
        tree.read("app.txt"),
        "good\n",
        "the repair is on disk while it is checked"
    );
    let pid = child.id().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["status"], "interrupted");
    assert_eq!(
        tree.read("app.txt"),
        "bad\n",
        "the tree is back at its checkpoint"
    );
    let log = tree.salve().args(["--json", "log"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    assert_eq!(runs[0]["kind"], "fix");
    assert_eq!(runs[0]["status"], "interrupted");
}

/// Wait (bounded) until `path` exists.
fn wait_for(path: &Path) {
    for _ in 0..600 {
        if path.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("{} never appeared", path.display());
}

/// A provider that reports its cost (the claude preset's `total_cost_usd`): once the spent
/// cost reaches `--max-cost`, the loop stops before asking again.
#[test]
fn the_provider_cost_budget_stops_the_loop_before_the_next_call() {
    let tree = python_project(&[PY_NOOP]);
    let reply = serde_json::json!({
        "type": "result",
        "is_error": false,
        "result": PY_NOOP,
        "total_cost_usd": 0.5,
    });
    let provider = tree.outside().join("costly.sh");
    std::fs::write(
        &provider,
        format!(
            "cat > /dev/null\necho call >> {:?}\ncat <<'EOF'\n{reply}\nEOF\n",
            tree.outside().join("costly.calls").to_string_lossy()
        ),
    )
    .unwrap();
    tree.write(
        "salve.toml",
        format!(
            "[providers.costly]\nkind = \"command\"\npreset = \"claude\"\ncommand = [\"sh\", {:?}]\n\n[chains]\ndefault = [\"costly\"]\nquality = [\"costly\"]\n",
            provider.to_string_lossy()
        ),
    )
    .commit("a provider that costs")
    .trust();
    let out = fix(
        &tree,
        &["--max-cost", "0.4", "--", "python3", "-m", "unittest", "-q"],
    );
    out.code(1);
    let json = out.json();
    assert_eq!(json["status"], "budget_exhausted", "{}", out.stdout);
    assert_eq!(json["cost_usd"], 0.5);
    let calls = std::fs::read_to_string(tree.outside().join("costly.calls")).unwrap();
    assert_eq!(calls.lines().count(), 1);
}
