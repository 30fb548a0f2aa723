#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use super::*;

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap()
        .success();
    assert!(ok);
    dir
}

const E0308: &str = "mismatched types: expected `u32`, found `&str` at src/lib.rs:12:5";
const FIX: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn one() -> u32 { \"1\" }\n+pub fn one() -> u32 { 1 }\n";

fn failure(message: &str) -> FailurePattern {
    FailurePattern::new(
        "type_error",
        Some("rustc".into()),
        Some("E0308".into()),
        message,
    )
}

#[test]
fn normalize_takes_out_what_moves() {
    assert_eq!(
        normalize(
            "\u{1b}[31merror\u{1b}[0m at src/lib.rs:12:5: expected `u32`, found 3.5 (0x7ffd)"
        ),
        "error at <path> expected `u32`, found N (N)"
    );
    assert_eq!(
        normalize("E0308   in  lib.rs:40  line 7"),
        "E0308 in <path> line N"
    );
    assert_eq!(
        normalize("assert 4 == 5\n where 4 = add(2, 2)"),
        "assert N == N where N = add(N, N)"
    );
    // Quoted names are kept: they say what the failure is about.
    assert_ne!(
        normalize("cannot find `foo`"),
        normalize("cannot find `bar`")
    );
}

#[test]
fn learn_then_find_the_same_failure_on_other_lines() {
    let tmp = repo();
    let mut rules = Rules::load(tmp.path()).unwrap();
    let id = rules.learn(&failure(E0308), FIX).unwrap();
    assert_eq!(id.len(), 12);
    // Learning the same again is the same rule.
    assert_eq!(rules.learn(&failure(E0308), FIX).unwrap(), id);

    let later = failure("mismatched types: expected `u32`, found `&str` at src/lib.rs:40:9");
    let found = rules
        .find(std::slice::from_ref(&later), false)
        .unwrap()
        .unwrap();
    assert_eq!(found.id, id);
    assert_eq!(found.origin, Origin::Learned);
    assert_eq!(found.successes, 2);
    assert_eq!(found.template, FIX);
    // Another type, another tool, another kind: no match.
    let other = failure("mismatched types: expected `u64`, found `&str` at src/lib.rs:40:9");
    assert!(rules.find(&[other], false).unwrap().is_none());
    let mut from_tsc = later.clone();
    from_tsc.tool = Some("tsc".into());
    assert!(rules.find(&[from_tsc], false).unwrap().is_none());
    // Production: pinned only.
    assert!(rules.find(&[later], true).unwrap().is_none());
}

#[test]
fn failed_replays_lower_confidence_then_retire() {
    let tmp = repo();
    let mut rules = Rules::load(tmp.path()).unwrap();
    let id = rules.learn(&failure(E0308), FIX).unwrap();
    let up = rules.record_result(&id, true).unwrap();
    assert!(up.rule.confidence > INITIAL_CONFIDENCE);
    assert_eq!((up.rule.hits, up.rule.successes), (1, 2));
    let mut last = up.rule.confidence;
    for n in 1..=RETIRE_AFTER {
        let r = rules.record_result(&id, false).unwrap();
        assert!(r.rule.confidence < last);
        last = r.rule.confidence;
        assert_eq!(r.retired_now, n == RETIRE_AFTER);
        assert_eq!(r.rule.retired, n == RETIRE_AFTER);
    }
    assert!(rules.find(&[failure(E0308)], false).unwrap().is_none());
    // Still listed, as retired.
    let listed = rules.list().unwrap();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].retired);
    let err = rules.record_result("ffffffffffff", true).unwrap_err();
    assert_eq!(err.code(), "no_such_rule");
}

#[test]
fn pinned_rules_round_trip_and_serve_production() {
    let tmp = repo();
    let mut rules = Rules::load(tmp.path()).unwrap();
    let id = rules.learn(&failure(E0308), FIX).unwrap();
    let path = rules.pin(&id[..6], Some("u32-literal")).unwrap();
    assert!(
        path.ends_with(".salve/rules/u32-literal.toml"),
        "{}",
        path.display()
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("[pattern]") && text.contains("[edit]"),
        "{text}"
    );

    // A fresh load (another run) reads the file back as it was.
    let rules = Rules::load(tmp.path()).unwrap();
    let listed = rules.list().unwrap();
    assert_eq!(listed.len(), 1, "pinning moves the rule out of the record");
    let pinned = &listed[0];
    assert_eq!(pinned.origin, Origin::Pinned);
    assert_eq!(pinned.name.as_deref(), Some("u32-literal"));
    assert_eq!(pinned.id, id);
    assert_eq!(pinned.template, FIX);
    assert_eq!(pinned.pattern, failure(E0308));
    assert_eq!(pinned.confidence, INITIAL_CONFIDENCE);
    let found = rules.find(&[failure(E0308)], true).unwrap().unwrap();
    assert_eq!(found.name.as_deref(), Some("u32-literal"));
    assert_eq!(rules.show("u32-literal").unwrap().id, id);
}

#[test]
fn a_hand_written_rule_file_loads_and_a_broken_one_is_an_error() {
    let tmp = repo();
    let dir = tmp.path().join(RULES_DIR);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("noqa.toml"),
        "[pattern]\nkind = \"lint\"\nmessage = \"unused import at app.py:3\"\n\n[edit]\ntemplate = '''\nx\n'''\n",
    )
    .unwrap();
    let rules = Rules::load(tmp.path()).unwrap();
    let lint = FailurePattern::new(
        "lint",
        Some("ruff".into()),
        None,
        "unused import at app.py:9",
    );
    let found = rules.find(&[lint], true).unwrap().unwrap();
    assert_eq!(found.confidence, 1.0);
    assert_eq!(found.template, "x\n");

    std::fs::write(dir.join("broken.toml"), "[pattern]\nkind = 3\n").unwrap();
    let err = Rules::load(tmp.path()).unwrap_err();
    assert_eq!(err.code(), "bad_rule_file");
    assert_eq!(err.kind(), Kind::Config);
}

#[test]
fn unpin_remove_and_their_refusals() {
    let tmp = repo();
    let mut rules = Rules::load(tmp.path()).unwrap();
    let id = rules.learn(&failure(E0308), FIX).unwrap();
    rules.pin(&id, None).unwrap();
    assert_eq!(rules.remove(&id).unwrap_err().code(), "rule_pinned");
    assert_eq!(rules.pin(&id, None).unwrap_err().code(), "rule_pinned");
    assert_eq!(rules.unpin("../x").unwrap_err().code(), "bad_rule_name");
    assert_eq!(rules.unpin("nope").unwrap_err().code(), "no_such_rule");

    assert_eq!(rules.unpin(&id).unwrap(), id);
    assert!(!tmp
        .path()
        .join(RULES_DIR)
        .join(format!("{id}.toml"))
        .exists());
    let back = rules.show(&id).unwrap();
    assert_eq!(back.origin, Origin::Learned);
    assert_eq!(back.successes, 1);
    assert_eq!(rules.remove(&id).unwrap().id, id);
    assert!(rules.list().unwrap().is_empty());
    assert_eq!(rules.show(&id).unwrap_err().code(), "no_such_rule");
}

#[test]
fn the_most_confident_match_wins_and_pinned_breaks_ties() {
    let tmp = repo();
    let mut rules = Rules::load(tmp.path()).unwrap();
    let a = rules.learn(&failure(E0308), "edit a").unwrap();
    let b = rules.learn(&failure(E0308), "edit b").unwrap();
    rules.record_result(&b, true).unwrap();
    assert_eq!(rules.find(&[failure(E0308)], false).unwrap().unwrap().id, b);
    rules.pin(&a, Some("a")).unwrap();
    // The pinned one has 0.8, the learned one more: confidence first.
    assert_eq!(rules.find(&[failure(E0308)], false).unwrap().unwrap().id, b);
    assert_eq!(rules.find(&[failure(E0308)], true).unwrap().unwrap().id, a);
}

#[test]
fn templates_render_the_failing_file() {
    let rule = Rule {
        id: "x".into(),
        name: None,
        origin: Origin::Learned,
        pattern: failure(E0308),
        template: "--- a/{{file}}\n+++ b/{{file}}\n".into(),
        confidence: 1.0,
        hits: 0,
        successes: 0,
        failures: 0,
        retired: false,
        created: None,
        updated: None,
    };
    assert_eq!(
        rule.render(Some("src/a.rs")),
        "--- a/src/a.rs\n+++ b/src/a.rs\n"
    );
    assert_eq!(rule.render(None), rule.template);
    let json = serde_json::to_value(&rule).unwrap();
    assert_eq!(json["origin"], "learned");
    assert_eq!(json["pattern"]["code"], "E0308");
}
