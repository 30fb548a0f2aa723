//! The fix loop's budgets count failed attempts per failure, and its confidence gate holds for
//! every repair a model proposes.

use crate::fix::{calls, fix, python_project, PY_FIX};
use crate::support::{Run, Tree};

const UNITTEST: &[&str] = &["--", "python3", "-m", "unittest", "-q"];
const BROKEN: &str = "def add(a, b):\n    return a - b\n";

/// A repair that made the check pass gives its failure the whole budget back: the same break
/// fixed four times in a row (three is the attempt budget) is fixed the fourth time too.
#[test]
fn a_success_resets_the_failures_budget() {
    let tree = python_project(&[PY_FIX]);
    for round in 1..=4 {
        let out = fix(&tree, UNITTEST);
        out.code(0);
        // The model's repair first, then the rule learned from it: either way not refused for
        // a budget spent by earlier successes.
        let status = out.json()["status"].clone();
        assert!(
            status == "repaired" || status == "rule_applied",
            "round {round}: {}",
            out.stdout
        );
        assert_eq!(tree.read("calc.py"), "def add(a, b):\n    return a + b\n");
        // The same break comes back.
        tree.write("calc.py", BROKEN).commit("the bug again");
    }
    assert!(calls(&tree) >= 1);
}

/// Failures no reader understands have budgets of their own, by their output: exhausting one
/// leaves another its model calls.
#[test]
fn unparsed_failures_do_not_share_one_budget() {
    let tree = python_project(&[PY_FIX]);
    let a = ["--", "sh", "-c", "echo 'it broke: alpha'; exit 3"];
    for _ in 0..2 {
        let out = fix(&tree, &a);
        out.code(1);
    }
    let spent = fix(&tree, &a);
    spent.code(1);
    assert_eq!(
        spent.json()["status"],
        "budget_exhausted",
        "{}",
        spent.stdout
    );
    let before = calls(&tree);
    let b = fix(
        &tree,
        &["--", "sh", "-c", "echo 'another thing: beta'; exit 4"],
    );
    b.code(1);
    assert_ne!(b.json()["status"], "budget_exhausted", "{}", b.stdout);
    assert!(calls(&tree) > before, "the other failure got no model call");
}

/// A repair that states no confidence is asked for it once; the answer decides.
#[test]
fn a_repair_without_confidence_is_asked_for_it_and_refused_without_one() {
    let unstated = PY_FIX.replace("Confidence: 0.95\n", "");
    // Asked, it says 0.9: applied.
    let tree = python_project(&[&unstated, "Confidence: 0.9\n"]);
    let out = fix(&tree, UNITTEST);
    out.code(0);
    assert_eq!(out.json()["status"], "repaired", "{}", out.stdout);
    assert_eq!(calls(&tree), 2);
    // The follow-up is counted as the provider call it is.
    assert_eq!(out.json()["provider_calls"], 2, "{}", out.stdout);
    // Asked, it still says nothing: below the gate, nothing applied.
    let tree = python_project(&[&unstated, "I am fairly sure.\n"]);
    let out = fix(&tree, UNITTEST);
    out.code(1);
    assert_eq!(
        out.json()["status"],
        "rejected_low_confidence",
        "{}",
        out.stdout
    );
    assert_eq!(tree.read("calc.py"), BROKEN);
}

/// A repair that writes outside the work tree is refused by the guard, which names the path;
/// the loop ends `guard_rejected`, not `exhausted`.
#[test]
fn a_repair_outside_the_tree_is_guard_rejected_with_its_path() {
    let outside = "```diff\n--- a/../elsewhere.py\n+++ b/../elsewhere.py\n@@ -0,0 +1 @@\n+x = 1\n```\nConfidence: 0.9\n";
    let tree = python_project(&[outside]);
    let out = fix(&tree, UNITTEST);
    out.code(1);
    let json = out.json();
    assert_eq!(json["status"], "guard_rejected", "{}", out.stdout);
    let finding = json["guard"][0].to_string();
    assert!(
        finding.contains("outside_paths") && finding.contains("elsewhere.py"),
        "{finding}"
    );
    assert!(!tree.outside().join("elsewhere.py").exists());
    assert_eq!(tree.read("calc.py"), BROKEN);
}

/// A flag salve does not know, before the `--`, is a usage error naming it, not the check to
/// run; after the first word of the command, the rest is the command's own.
#[test]
fn an_unknown_flag_before_the_command_is_a_usage_error() {
    let tree = Tree::git();
    tree.write("a.txt", "a\n").commit("init");
    let run = Run::from(
        tree.salve()
            .args(["fix", "--max-attempts", "1", "--", "true"])
            .output()
            .unwrap(),
    );
    run.code(2);
    assert!(
        run.stderr.contains("unexpected argument '--max-attempts'"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--attempts"), "{}", run.stderr);
    let run = Run::from(
        tree.salve()
            .args(["fix", "--attempts", "1", "sh", "-c", "exit 0"])
            .output()
            .unwrap(),
    );
    run.code(0);
    assert!(run.stdout.contains("already_green"), "{}", run.stdout);
}
