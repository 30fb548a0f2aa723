//! Refusals a model can act on (issue 13 point 15): every candidate names the scope it sits in
//! and shows the file's numbered lines around it, in `--json`, in the human report, and in the
//! follow-up `salve ask` sends after a refusal, which is labelled as its own call.

use crate::ask::{command_provider, fixture, run, salve};
use crate::support::Tree;

const INVOICE: &str = "\
import os


class Invoice:
    def total(self):
        x = 1
        return x

    def tax(self):
        x = 1
        return x
";

/// Matches both methods' bodies, and has no line numbers to choose by: ambiguous.
const TWICE: &str = "app.py\n```\n<<<<<<< SEARCH\n        x = 1\n        return x\n=======\n        x = 1\n        return x + 1\n>>>>>>> REPLACE\n```\n";

#[test]
fn ambiguous_candidates_name_their_scope_and_show_numbered_lines() {
    let tree = Tree::git();
    tree.write("app.py", INVOICE).commit("start");
    let run = tree.apply(TWICE, &["--json"]);
    run.code(1);
    let json = run.json();
    let hunk = &json["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "ambiguous", "{json}");
    let cands = hunk["candidates"].as_array().unwrap();
    assert_eq!(cands.len(), 2, "{json}");
    assert_eq!(
        cands[0]["scope"],
        serde_json::json!({ "line": 5, "text": "def total(self):" })
    );
    assert_eq!(
        cands[1]["scope"],
        serde_json::json!({ "line": 9, "text": "def tax(self):" })
    );
    // Two lines before, the candidate's two, two after.
    let lines: Vec<u64> = cands[1]["excerpt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [8, 9, 10, 11]);
    assert_eq!(cands[1]["excerpt"][1]["text"], "    def tax(self):");

    let human = tree.apply(TWICE, &[]);
    human.code(1);
    let out = &human.stdout;
    assert!(
        out.contains("candidate at lines 6-7 (similarity 1.00), in `def total(self):` (line 5):"),
        "{out}"
    );
    assert!(out.contains("in `def tax(self):` (line 9):"), "{out}");
    assert!(
        out.contains("      > 10 |         x = 1\n      > 11 |         return x\n"),
        "{out}"
    );
    assert!(out.contains("         9 |     def tax(self):\n"), "{out}");
    assert_eq!(tree.read("app.py"), INVOICE, "nothing written");
}

#[test]
fn markdown_candidates_are_placed_under_their_heading() {
    let tree = Tree::git();
    let doc = "# Guide\n\nIntro.\n\n## Install\n\nRun the installer.\nThen restart.\n\n## Use\n\nRun the tool.\n";
    tree.write("GUIDE.md", doc).commit("start");
    let reply = "```diff\n--- a/GUIDE.md\n+++ b/GUIDE.md\n@@ -7,2 +7,2 @@\n-Run the instaler.\n+Run the installer now.\n Then restart.\n```\n";
    let run = tree.apply(reply, &["--json"]);
    run.code(1);
    let json = run.json();
    let cand = &json["files"][0]["hunks"][0]["candidates"][0];
    assert_eq!(cand["lines"]["start"], 7, "{json}");
    assert_eq!(
        cand["scope"],
        serde_json::json!({ "line": 5, "text": "## Install" })
    );
    assert_eq!(cand["excerpt"][0]["line"], 5);
}

const APP: &str = "import sys\n\n\ndef greet(name):\n    message = 'helo ' + name\n    return message\n\n\ndef main():\n    print(greet(sys.argv[1]))\n";

#[test]
fn the_ask_follow_up_carries_the_numbered_excerpt_as_its_own_call() {
    let tree = Tree::git();
    let log = tree.outside().join("prompts.log");
    let log_s = log.to_string_lossy().into_owned();
    tree.write("app.py", APP);
    tree.write(
        "salve.toml",
        command_provider(
            "model",
            &["sh", &fixture("misquote_in_scope_then_fix.sh"), &log_s],
        ),
    );
    tree.commit("start").trust();
    let mut cmd = salve(&tree);
    cmd.args(["ask", "Fix the greeting typo.", "--file", "app.py"]);
    let out = run(cmd);
    out.code(0);
    assert!(
        out.stdout.contains("model (call 1): edit"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("model (call 2): edit"),
        "the follow-up is call 2, not call 1 again:\n{}",
        out.stdout
    );
    // The refused round's report shows the scope and lines to the person too.
    assert!(
        out.stdout.contains("in `def greet(name):` (line 4):"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("> 5 |     message = 'helo ' + name"),
        "{}",
        out.stdout
    );
    assert!(tree.read("app.py").contains("'hello ' + name"));

    let prompts = std::fs::read_to_string(&log).unwrap();
    let asked: Vec<&str> = prompts
        .split("=====END=====\n")
        .filter(|p| !p.is_empty())
        .collect();
    assert_eq!(asked.len(), 2);
    let follow_up = asked[1];
    assert!(
        follow_up.contains(
            "### app.py, hunk 1 (not_found): lines 5-6, similarity 0.95, in `def greet(name):` (line 4)"
        ),
        "{follow_up}"
    );
    // The numbered lines, with the candidate's own marked.
    assert!(
        follow_up.contains(
            "  3 |\n  4 | def greet(name):\n> 5 |     message = 'helo ' + name\n> 6 |     return message\n  7 |\n  8 |\n"
        ),
        "{follow_up}"
    );
    // The lines go once, as text: the JSON copy of the report leaves the excerpt out.
    assert!(follow_up.contains("\"scope\""), "{follow_up}");
    assert!(!follow_up.contains("\"excerpt\""), "{follow_up}");
}
