//! `salve ask` and `salve doctor` end to end: the real binary, real git repositories, providers
//! that are real child processes or a real HTTP server on 127.0.0.1, and the bundled example
//! with its cassette.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::{Run, Tree};

mod secrets;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(super) fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/providers")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `salve` in the tree with a private, empty user configuration and no `SALVE_*` settings.
pub(super) fn salve(tree: &Tree) -> assert_cmd::Command {
    let home = tree.outside().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = tree.salve();
    cmd.env("HOME", &home).env_remove("XDG_CONFIG_HOME");
    for (key, _) in std::env::vars() {
        if key.starts_with("SALVE_") {
            cmd.env_remove(key);
        }
    }
    cmd
}

pub(super) fn run(mut cmd: assert_cmd::Command) -> Run {
    Run::from(cmd.output().unwrap())
}

/// A repository with `app.py` committed and `providers` configured in `salve.toml`, trusted.
pub(super) fn project(providers: &str) -> Tree {
    let tree = Tree::git();
    tree.write("app.py", "print('helo')\n");
    tree.write("salve.toml", providers);
    tree.commit("start");
    // The user trusts what the file runs; a file that cannot be read has nothing to trust,
    // and the test says what salve makes of it.
    tree.salve().arg("trust").output().unwrap();
    tree
}

pub(super) fn command_provider(name: &str, argv: &[&str]) -> String {
    let quoted: Vec<String> = argv.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "[providers.{name}]\nkind = \"command\"\ncommand = [{}]\ntimeout_secs = 20\n",
        quoted.join(", ")
    )
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The bundled example in a fresh repository, committed as a user would have it.
fn demo() -> (Tree, String) {
    let tree = Tree::git();
    copy_dir(&workspace().join("examples/ask-demo"), &tree.root);
    tree.commit("demo");
    let instruction = tree.read("instruction.txt").trim().to_owned();
    (tree, instruction)
}

fn demo_ask(tree: &Tree, instruction: &str, extra: &[&str]) -> Run {
    let mut cmd = salve(tree);
    cmd.args(extra).args([
        "ask",
        instruction,
        "--file",
        "temperature/convert.py",
        "--target",
        "tests/test_convert.py",
    ]);
    run(cmd)
}

#[test]
fn the_bundled_example_is_applied_checkpointed_recorded_and_undone() {
    let (tree, instruction) = demo();
    let before = tree.snapshot();
    let start = Instant::now();
    let out = demo_ask(&tree, &instruction, &[]);
    out.code(0);
    assert!(
        out.stdout.contains("ask: applied (2 files written)"),
        "{}",
        out.stdout
    );
    assert!(start.elapsed() < Duration::from_secs(20));
    assert!(tree
        .read("temperature/convert.py")
        .contains("return celsius * 9 / 5 + 32"));
    assert!(tree
        .read("tests/test_convert.py")
        .contains("class FahrenheitTest"));

    // Checkpointed: a checkpoint ref exists and the run names it.
    let refs = tree.git_cmd(&["for-each-ref", "--format=%(refname)", "refs/salve/catalog"]);
    assert!(!refs.trim().is_empty(), "no checkpoint was taken");

    // Recorded, with every artifact.
    let log = run({
        let mut c = salve(&tree);
        c.args(["--json", "log"]);
        c
    });
    log.code(0);
    let runs = log.json();
    let ask_run = &runs.as_array().unwrap()[0];
    assert_eq!(ask_run["kind"], "ask");
    assert_eq!(ask_run["status"], "applied");
    assert!(ask_run["checkpoint"].is_string());
    let id = ask_run["id"].as_str().unwrap();
    let show = run({
        let mut c = salve(&tree);
        c.args(["--json", "show", id]);
        c
    });
    show.code(0);
    let record = show.json();
    let names: Vec<&str> = record["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    for name in [
        "prompt",
        "raw_reply",
        "extracted_diff",
        "sanitized_diff",
        "final_diff",
        "apply_report",
    ] {
        assert!(names.contains(&name), "artifact {name} missing: {names:?}");
    }
    assert_eq!(record["attempts"][0]["provider"], "demo");
    assert_eq!(record["patch_sets"][0]["status"], "applied");
    let final_diff = run({
        let mut c = salve(&tree);
        c.args(["show", id, "--artifact", "final_diff"]);
        c
    });
    assert!(
        final_diff
            .stdout
            .contains("+    return celsius * 9 / 5 + 32"),
        "{}",
        final_diff.stdout
    );

    // Undone.
    run({
        let mut c = salve(&tree);
        c.arg("undo");
        c
    })
    .code(0);
    assert_eq!(tree.snapshot(), before, "undo did not bring the files back");
}

#[test]
fn dry_run_places_the_edit_and_writes_nothing() {
    let (tree, instruction) = demo();
    let before = tree.snapshot();
    let out = {
        let mut cmd = salve(&tree);
        cmd.args([
            "--json",
            "ask",
            &instruction,
            "--file",
            "temperature/convert.py",
            "--target",
            "tests/test_convert.py",
            "--dry-run",
        ]);
        run(cmd)
    };
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "checked");
    assert_eq!(json["provider"], "demo");
    assert_eq!(json["rounds"][0]["report"]["check_only"], true);
    assert_eq!(tree.snapshot(), before, "--dry-run wrote something");
}

#[test]
fn a_prompt_change_misses_the_cassette_and_says_how_to_record() {
    let (tree, _) = demo();
    let out = demo_ask(&tree, "Something the cassette never saw.", &[]);
    out.code(1);
    assert!(
        out.stdout.contains("All providers failed"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("demo: replay_miss"), "{}", out.stdout);
    assert!(out.stdout.contains("--record"), "{}", out.stdout);
}

#[test]
fn a_refused_edit_gets_one_follow_up_with_the_apply_report() {
    let tree = Tree::git();
    let log = tree.outside().join("prompts.log");
    let log_s = log.to_string_lossy().into_owned();
    tree.write("app.py", "print('helo')\n");
    tree.write(
        "salve.toml",
        command_provider("model", &["sh", &fixture("refuse_then_fix.sh"), &log_s]),
    );
    tree.commit("start");
    tree.trust();
    let mut cmd = salve(&tree);
    cmd.args([
        "--json",
        "ask",
        "Fix the greeting typo.",
        "--file",
        "app.py",
    ]);
    let out = run(cmd);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "applied");
    let rounds = json["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0]["report"]["outcome"], "refused");
    assert_eq!(rounds[1]["follow_up"], true);
    // The follow-up is the provider's second call, not a second "call 1".
    let calls: Vec<&serde_json::Value> = json["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["call"])
        .collect();
    assert_eq!(calls, [1, 2]);
    assert_eq!(tree.read("app.py"), "print('hello')\n");
    let prompts = std::fs::read_to_string(&log).unwrap();
    let asked: Vec<&str> = prompts
        .split("=====END=====\n")
        .filter(|p| !p.is_empty())
        .collect();
    assert_eq!(asked.len(), 2);
    assert!(asked[0].contains("## Instruction\n\nFix the greeting typo."));
    assert!(asked[0].contains("### app.py\n\n```python\nprint('helo')\n```"));
    // The follow-up carries the conversation and the report.
    assert!(asked[1].contains("salve could not apply your edit"));
    assert!(asked[1].contains("\"outcome\": \"refused\""));
    assert!(
        asked[1].contains("print('hallo')"),
        "the earlier reply is included"
    );
}

#[test]
fn follow_ups_can_be_turned_off() {
    let tree = Tree::git();
    let log = tree.outside().join("prompts.log");
    tree.write("app.py", "print('helo')\n");
    tree.write(
        "salve.toml",
        format!(
            "{}\n[ask]\nfollow_ups = 0\n",
            command_provider(
                "model",
                &["sh", &fixture("refuse_then_fix.sh"), log.to_str().unwrap()]
            )
        ),
    );
    tree.commit("start");
    tree.trust();
    let before = tree.snapshot();
    let mut cmd = salve(&tree);
    cmd.args(["ask", "Fix the greeting typo.", "--file", "app.py"]);
    let out = run(cmd);
    out.code(1);
    assert!(
        out.stdout.contains("ask: refused; nothing written"),
        "{}",
        out.stdout
    );
    assert_eq!(tree.snapshot(), before);
    // The flag beats the file.
    let mut cmd = salve(&tree);
    cmd.args([
        "ask",
        "Fix the greeting typo.",
        "--file",
        "app.py",
        "--follow-ups",
        "1",
    ]);
    run(cmd).code(0);
}

#[test]
fn the_sentinel_means_nothing_to_do() {
    let tree = project(&command_provider("model", &["sh", &fixture("sentinel.sh")]));
    let before = tree.snapshot();
    let mut cmd = salve(&tree);
    cmd.args(["--json", "ask", "Anything to fix?", "--file", "app.py"]);
    let out = run(cmd);
    out.code(0);
    assert_eq!(out.json()["status"], "no_change");
    assert_eq!(tree.snapshot(), before);
}

#[test]
fn the_chain_falls_back_in_order_and_all_failed_lists_every_reason() {
    let providers = format!(
        "{}{}{}[chains]\ndefault = [\"down\", \"chatty\", \"good\"]\nfast = [\"down\", \"chatty\"]\n",
        command_provider("down", &["sh", &fixture("fail.sh")]),
        command_provider("chatty", &["sh", &fixture("prose.sh")]),
        command_provider("good", &["sh", &fixture("fix.sh")]),
    );
    let tree = project(&providers);
    let mut cmd = salve(&tree);
    cmd.args(["--json", "ask", "Fix the typo.", "--file", "app.py"]);
    let out = run(cmd);
    out.code(0);
    let json = out.json();
    assert_eq!(json["provider"], "good");
    let classes: Vec<(&str, &str)> = json["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["provider"].as_str().unwrap(),
                a["class"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        classes,
        [("down", "error"), ("chatty", "non_diff"), ("good", "edit")]
    );
    assert!(json["attempts"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("model service unreachable"));

    let mut cmd = salve(&tree);
    cmd.args([
        "ask",
        "Fix the typo.",
        "--file",
        "app.py",
        "--model-hint",
        "fast",
    ]);
    let out = run(cmd);
    out.code(1);
    assert!(
        out.stdout.contains("All providers failed (chain `fast`):"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("  down: exit: the command failed (exit code 7)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("  chatty: the reply holds no edit"),
        "{}",
        out.stdout
    );

    // --provider asks one provider alone.
    let mut cmd = salve(&tree);
    cmd.args([
        "--json",
        "ask",
        "Fix the typo.",
        "--file",
        "app.py",
        "--provider",
        "good",
        "--dry-run",
    ]);
    let out = run(cmd);
    out.code(0);
    assert_eq!(out.json()["attempts"].as_array().unwrap().len(), 1);
}

#[test]
fn configuration_errors_exit_2() {
    let tree = project("[providers.x\n");
    let mut cmd = salve(&tree);
    cmd.args(["ask", "x", "--file", "app.py"]);
    let out = run(cmd);
    out.code(2);
    assert!(out.stderr.contains("Config error:"), "{}", out.stderr);
    assert!(out.stderr.contains("salve.toml"), "{}", out.stderr);

    let tree = project(&command_provider("good", &["sh", &fixture("fix.sh")]));
    let mut cmd = salve(&tree);
    cmd.args(["ask", "x", "--file", "app.py", "--provider", "nope"]);
    let out = run(cmd);
    out.code(2);
    assert!(
        out.stderr.contains("unknown provider `nope`"),
        "{}",
        out.stderr
    );

    let mut cmd = salve(&tree);
    cmd.args(["ask", "x", "--file", "missing.py"]);
    let out = run(cmd);
    out.code(2);
    assert!(
        out.stderr.contains("missing.py: no such file"),
        "{}",
        out.stderr
    );
}

#[test]
fn doctor_reports_git_config_providers_chains_and_store() {
    let providers = format!(
        "[providers.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_key_env = \"SALVE_TEST_DOCTOR_KEY\"\n\n{}[providers.tape]\nkind = \"replay\"\ncassette = \"none.jsonl\"\n",
        command_provider("script", &["sh", &fixture("fix.sh")]),
    );
    let tree = project(&providers);
    let mut cmd = salve(&tree);
    cmd.args(["--json", "doctor"])
        .env("SALVE_TEST_DOCTOR_KEY", "sk-doctor-value-0987654321");
    let out = run(cmd);
    out.code(0);
    assert!(!out.stdout.contains("sk-doctor-value"));
    let json = out.json();
    assert!(json["git"]["version"].is_string());
    let sources = json["config"]["sources"].as_array().unwrap();
    assert_eq!(sources[0]["kind"], "user");
    assert_eq!(sources[0]["found"], false);
    assert_eq!(sources[1]["kind"], "repository");
    assert_eq!(sources[1]["found"], true);
    let providers = json["providers"].as_array().unwrap();
    let by_name = |n: &str| providers.iter().find(|p| p["name"] == n).unwrap().clone();
    let local = by_name("local");
    assert_eq!(local["available"], false, "port 9 is closed");
    let checks = local["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["what"] == "key" && c["ok"] == true));
    assert_eq!(by_name("script")["available"], true);
    assert_eq!(by_name("tape")["available"], false);
    assert_eq!(by_name("claude")["origin"], "builtin");
    assert_eq!(
        json["chains"]["default"]["providers"],
        serde_json::json!(["local", "script", "tape"])
    );
    assert!(json["store"]["path"]
        .as_str()
        .unwrap()
        .ends_with(".git/salve"));

    let mut cmd = salve(&tree);
    cmd.arg("doctor");
    let out = run(cmd);
    out.code(0);
    assert!(
        out.stdout
            .contains("  local (repository, openai, model m): unavailable"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("    key missing: SALVE_TEST_DOCTOR_KEY is not set"),
        "{}",
        out.stdout
    );
}

#[test]
fn doctor_exits_2_with_a_hint_when_no_provider_could_answer() {
    // Only a replay provider whose cassette is missing, and no agent program on PATH.
    let tree = project("[providers.tape]\nkind = \"replay\"\ncassette = \"none.jsonl\"\n");
    let path = crate::json_snapshots::bare_path(&tree);
    let mut cmd = salve(&tree);
    cmd.env("PATH", &path).arg("doctor");
    let out = run(cmd);
    out.code(2);
    assert!(
        out.stdout.contains(
            "problem: no provider could answer: ask and fix cannot reach a model\n  Hint: "
        ),
        "{}",
        out.stdout
    );
    let mut cmd = salve(&tree);
    cmd.env("PATH", &path).args(["--json", "doctor"]);
    let out = run(cmd);
    out.code(2);
    let problems = out.json()["problems"].as_array().unwrap().clone();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0]["hint"].as_str().unwrap().contains("salve.toml"));
}

#[test]
fn every_error_has_a_hint() {
    let tree = Tree::git();
    for args in [
        &["-C", "/nonexistent/salve", "log"][..],
        &["import", "/nonexistent/export.jsonl"],
        &["commit", "--files", "nothing.rs", "-m", "x"],
        &["restore", "ffffffffffff"],
        &["undo"],
        &["show", "0123456789"],
    ] {
        let mut cmd = salve(&tree);
        cmd.args(args);
        let out = run(cmd);
        assert_ne!(out.code, 0, "{args:?}");
        assert!(out.stderr.contains("\nHint: "), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn outside_git_the_edit_is_written_without_a_checkpoint() {
    let tree = Tree::plain();
    tree.write("app.py", "print('helo')\n");
    tree.write(
        "salve.toml",
        command_provider("model", &["sh", &fixture("fix.sh")]),
    );
    tree.trust();
    let mut cmd = salve(&tree);
    cmd.args(["--json", "ask", "Fix the typo.", "--file", "app.py"]);
    let out = run(cmd);
    out.code(0);
    let json = out.json();
    assert_eq!(json["status"], "applied");
    assert!(json.get("checkpoint").is_none(), "{json}");
    assert!(
        json.get("run").is_none(),
        "no record without git or .salve/: {json}"
    );
    assert_eq!(tree.read("app.py"), "print('hello')\n");
    assert!(!tree.exists(".salve"), "salve littered a plain directory");
}

#[test]
fn a_key_in_a_well_known_variable_is_redacted_even_when_no_provider_names_it() {
    let key = "sk-well-known-canary-31415926535897";
    let tree = project(&command_provider("parrot", &["sh", &fixture("leak.sh")]));
    let mut cmd = salve(&tree);
    cmd.env("OPENAI_API_KEY", key)
        .env("SALVE_TEST_LEAK_KEY", key)
        .args([
            "--json",
            "ask",
            "Fix the typo.",
            "--file",
            "app.py",
            "--dry-run",
        ]);
    let out = run(cmd);
    out.code(0);
    assert!(!out.stdout.contains(key), "{}", out.stdout);
    let run_id = out.json()["run"].as_str().unwrap().to_owned();
    let mut cmd = salve(&tree);
    cmd.args(["show", &run_id, "--artifact", "raw_reply"]);
    let reply = run(cmd);
    reply.code(0);
    assert!(!reply.stdout.contains(key), "{}", reply.stdout);
    assert!(
        reply.stdout.contains("Using key [REDACTED]."),
        "{}",
        reply.stdout
    );
}
