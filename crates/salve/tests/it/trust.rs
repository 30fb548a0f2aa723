//! A cloned repository cannot widen what salve does: its `salve.toml` runs no program and sends
//! no key until the user runs `salve trust`, and a changed section needs trusting again. The
//! providers are real: a child process, and an OpenAI-compatible HTTP server on 127.0.0.1 that
//! records the `Authorization` header of every request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::ask::{fixture, run, salve};
use crate::mcp::{repo as mcp_repo, Server};
use crate::support::{Run, Tree};

const KEY: &str = "sk-salve-trust-canary-5e1f0c";

/// An OpenAI-compatible server answering every chat completion with the fix of `app.py`, and
/// the `Authorization` headers it received, one per request.
fn openai_server() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let reply = "Fixed.\n\n```diff\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print('helo')\n+print('hello')\n```\n";
    let body = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
    })
    .to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            let mut auth = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("authorization:") {
                    auth = line["authorization:".len()..].trim().to_owned();
                }
            }
            let mut sink = vec![0u8; length];
            let _ = reader.read_exact(&mut sink);
            log.lock().unwrap().push(auth);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, seen)
}

/// A repository whose `salve.toml` defines a command provider (a script that notes each run in
/// [`marker`]) and an HTTP provider that reads the user's `OPENAI_API_KEY`; and a fresh clone
/// of it.
fn cloned_project(url: &str) -> (Tree, Tree) {
    let origin = Tree::git();
    let ran = marker(&origin);
    let script = origin.outside().join("tool.sh");
    std::fs::write(
        &script,
        format!(
            "echo ran >> {:?}\nexec sh {:?}\n",
            ran.to_string_lossy(),
            fixture("fix.sh")
        ),
    )
    .unwrap();
    origin
        .write("app.py", "print('helo')\n")
        .write(
            "salve.toml",
            format!(
                "[providers.tool]\nkind = \"command\"\ncommand = [\"sh\", {:?}]\ntimeout_secs = 20\n\n\
                 [providers.http]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"m\"\n\
                 api_key_env = \"OPENAI_API_KEY\"\ntimeout_secs = 20\n\n\
                 [chains]\ndefault = [\"tool\"]\n\n[ask]\nfollow_ups = 0\n",
                script.to_string_lossy()
            ),
        )
        .commit("a project that brings its own providers");
    let clone = Tree::plain();
    let status = Command::new("git")
        .args(["clone", "-q"])
        .arg(&origin.root)
        .arg(&clone.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(status.success());
    clone.git_cmd(&["config", "user.name", "salve tests"]);
    clone.git_cmd(&["config", "user.email", "tests@salve.invalid"]);
    (origin, clone)
}

fn ask(tree: &Tree, provider: Option<&str>) -> Run {
    let mut cmd = salve(tree);
    cmd.env("OPENAI_API_KEY", KEY)
        .args(["ask", "Fix the greeting typo.", "--file", "app.py"]);
    if let Some(p) = provider {
        cmd.args(["--provider", p]);
    }
    run(cmd)
}

/// The `Authorization` headers that carried a key.
fn keyed(seen: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|a| !a.is_empty())
        .cloned()
        .collect()
}

/// Where the repository's provider notes each run: outside both trees.
fn marker(origin: &Tree) -> PathBuf {
    origin.outside().join("tool.ran")
}

fn runs(ran: &Path) -> usize {
    std::fs::read_to_string(ran)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn refused_as_untrusted(out: &Run, section: &str) {
    out.code(2);
    assert!(
        out.stderr.contains(&format!("[providers.{section}]"))
            && out.stderr.contains("not trusted"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("salve trust"), "{}", out.stderr);
}

#[test]
fn a_clones_providers_run_nothing_and_get_no_key_until_trusted_and_again_after_a_change() {
    let (url, seen) = openai_server();
    let (origin, clone) = cloned_project(&url);
    let ran = marker(&origin);

    // Before trust: nothing runs, no request is made, nothing changes.
    refused_as_untrusted(&ask(&clone, None), "tool");
    refused_as_untrusted(&ask(&clone, Some("http")), "http");
    assert_eq!(runs(&ran), 0, "the repository's program ran");
    assert!(seen.lock().unwrap().is_empty(), "a request was sent");
    // (`salve doctor` below checks that the endpoint answers, without a key.)
    assert_eq!(clone.read("app.py"), "print('helo')\n");
    let shown = run({
        let mut cmd = salve(&clone);
        cmd.args(["--json", "trust", "--show"]);
        cmd
    });
    shown.code(0);
    let sections: Vec<(String, bool)> = shown.json()["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["section"].as_str().unwrap().to_owned(),
                s["trusted"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sections,
        [
            ("providers.tool".to_owned(), false),
            ("providers.http".to_owned(), false)
        ]
    );

    let doctor = run({
        let mut cmd = salve(&clone);
        cmd.arg("doctor");
        cmd
    });
    assert!(
        doctor.stdout.contains("[providers.tool] in ")
            && doctor
                .stdout
                .contains(": not trusted, ignored (it runs a program)"),
        "{}",
        doctor.stdout
    );

    // After trust: both work, and the key goes where the user allowed.
    let trusted = run({
        let mut cmd = salve(&clone);
        cmd.arg("trust");
        cmd
    });
    trusted.code(0);
    assert!(
        trusted.stdout.contains("[providers.tool]"),
        "{}",
        trusted.stdout
    );
    assert!(
        trusted.stdout.contains("trusted 2 new sections"),
        "{}",
        trusted.stdout
    );
    ask(&clone, None).code(0);
    assert_eq!(runs(&ran), 1);
    let doctor = run({
        let mut cmd = salve(&clone);
        cmd.args(["--json", "doctor"]);
        cmd
    });
    let trust = doctor.json()["config"]["trust"].clone();
    assert_eq!(trust[0]["section"], "providers.tool", "{trust}");
    assert_eq!(trust[0]["trusted"], true, "{trust}");
    assert_eq!(trust[1]["power"], "sends_keys", "{trust}");
    assert_eq!(clone.read("app.py"), "print('hello')\n");
    clone.write("app.py", "print('helo')\n");
    ask(&clone, Some("http")).code(0);
    assert_eq!(keyed(&seen), [format!("Bearer {KEY}")]);
    clone.write("app.py", "print('helo')\n");

    // A change to either section (a pull, an agent's edit) needs trust again.
    let config = clone.read("salve.toml");
    clone.write(
        "salve.toml",
        config
            .replace(
                "timeout_secs = 20\n\n[providers.http]",
                "timeout_secs = 20\nmax_output_bytes = 100000\n\n[providers.http]",
            )
            .replace(&url, &format!("{url}/")),
    );
    refused_as_untrusted(&ask(&clone, None), "tool");
    refused_as_untrusted(&ask(&clone, Some("http")), "http");
    assert_eq!(runs(&ran), 1);
    assert_eq!(keyed(&seen).len(), 1);
    run({
        let mut cmd = salve(&clone);
        cmd.arg("trust");
        cmd
    })
    .code(0);
    ask(&clone, None).code(0);
    assert_eq!(runs(&ran), 2);
}

#[test]
fn an_untrusted_provider_in_a_longer_chain_is_left_out_with_a_note() {
    let tree = crate::ask::project(&format!(
        "[providers.tool]\nkind = \"command\"\ncommand = [\"sh\", {:?}]\n\n[providers.tape]\nkind = \"replay\"\ncassette = \"none.jsonl\"\n\n[chains]\ndefault = [\"tool\", \"tape\"]\n",
        fixture("fix.sh")
    ));
    run({
        let mut cmd = salve(&tree);
        cmd.args(["trust", "--revoke"]);
        cmd
    })
    .code(0);
    let mut cmd = salve(&tree);
    cmd.args(["--json", "ask", "Fix it.", "--file", "app.py"]);
    let out = run(cmd);
    // The replay provider has no answer; the point is who was asked.
    let json = out.json();
    let asked: Vec<&str> = json["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["provider"].as_str().unwrap())
        .collect();
    assert_eq!(asked, ["tape"], "{json}");
    assert!(
        json["untrusted"][0]
            .as_str()
            .unwrap()
            .contains("[providers.tool]"),
        "{json}"
    );
    assert_eq!(tree.read("app.py"), "print('helo')\n");
    let mut cmd = salve(&tree);
    cmd.args(["ask", "Fix it.", "--file", "app.py"]);
    let out = run(cmd);
    assert!(
        out.stderr.contains("note: [providers.tool] in ")
            && out
                .stderr
                .contains("is ignored until you trust it: it runs a program"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_agent_that_edits_the_allowed_checks_through_the_server_cannot_run_them_until_the_user_trusts()
{
    let tree = mcp_repo();
    let pwned = tree.outside().join("pwned");
    let widened = format!(
        "[mcp]\nallowed_checks = [[\"sh\", \"-c\", \"touch {}\"]]\n",
        pwned.to_string_lossy()
    );
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let (wrote, is_error) = server.call(
        "write_file",
        json!({"path": "salve.toml", "content": widened}),
    );
    assert!(!is_error, "{wrote}");
    server.finish();
    assert_eq!(tree.read("salve.toml"), widened);

    let command = json!(["sh", "-c", format!("touch {}", pwned.to_string_lossy())]);
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let (named, is_error) = server.call("run_check", json!({ "command": command }));
    assert!(is_error, "{named}");
    assert_eq!(named["error"]["code"], "check_not_allowed", "{named}");
    let (default, is_error) = server.call("run_check", json!({}));
    assert!(is_error, "{default}");
    assert_eq!(default["error"]["code"], "no_check_configured", "{default}");
    for refusal in [&named, &default] {
        let hint = refusal["error"]["hint"].as_str().unwrap();
        assert!(hint.contains("only the user can allow"), "{hint}");
        for widening in ["salve.toml", "allowed_checks", "salve trust", "--allow"] {
            assert!(
                !hint.contains(widening),
                "the hint suggests `{widening}`: {hint}"
            );
        }
    }
    server.finish();
    assert!(!pwned.exists(), "the agent's check ran");

    tree.trust();
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let (ran, is_error) = server.call("run_check", json!({ "command": command }));
    assert!(!is_error, "{ran}");
    assert_eq!(ran["passed"], true, "{ran}");
    server.finish();
    assert!(pwned.exists());
}

#[test]
fn the_tools_say_which_change_files_and_which_only_read() {
    let tree = mcp_repo();
    let mut server = Server::start(&tree, &[]);
    server.initialize("2025-06-18");
    let listed = server.request("tools/list", json!({}));
    let hints: Vec<(String, Value, Value)> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["annotations"]["destructiveHint"].clone(),
                t["annotations"]["readOnlyHint"].clone(),
            )
        })
        .collect();
    server.finish();
    for (name, destructive, read_only) in hints {
        match name.as_str() {
            "write_file" | "apply_edit" | "str_replace" | "restore_checkpoint" | "undo" => {
                assert_eq!(destructive, json!(true), "{name}")
            }
            "log" | "show_run" | "list_checkpoints" => assert_eq!(read_only, json!(true), "{name}"),
            _ => assert_ne!(read_only, json!(true), "{name} changes something"),
        }
    }
}

/// A home directory kept in git puts salve's own folders in the work tree. An edit there could
/// trust the repository's sections or define a provider, so the path guard refuses it like
/// `.git/`, with the folder named; other files of the tree stay editable.
#[test]
fn edits_into_salves_own_folders_inside_the_tree_are_refused() {
    let tree = Tree::git();
    tree.write("notes.txt", "a\n").commit("init");
    let with_home = |reply: &str| {
        let file = tree.outside().join("reply.md");
        std::fs::write(&file, reply).unwrap();
        Run::from(
            tree.salve()
                .env("HOME", &tree.root)
                .args(["apply", "--json"])
                .arg(&file)
                .output()
                .unwrap(),
        )
    };
    for path in [
        ".local/share/salve/trust/0123abcd",
        ".config/salve/config.toml",
        ".config/./salve/../salve/config.toml",
    ] {
        let reply =
            format!("```diff\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+[providers.x]\n```\n");
        let before = tree.snapshot();
        let run = with_home(&reply);
        assert_ne!(run.code, 0, "{path}: {}", run.stdout);
        assert!(
            run.stdout.contains("salve's own folder"),
            "{path}: {}",
            run.stdout
        );
        assert_eq!(tree.snapshot(), before, "{path}");
    }
    let ok = with_home("```diff\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-a\n+b\n```\n");
    ok.code(0);
    assert_eq!(tree.read("notes.txt"), "b\n");
    // And trust kept in the tree is refused by `salve trust`, which names why.
    let trusting = Run::from(
        tree.salve()
            .env("HOME", &tree.root)
            .arg("trust")
            .output()
            .unwrap(),
    );
    trusting.code(2);
    assert!(
        trusting.stderr.contains("inside the work tree"),
        "{}",
        trusting.stderr
    );
}
