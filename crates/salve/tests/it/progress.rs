//! Progress and hung providers end to end: a provider that only keeps retrying its connection
//! (a real child process printing codex's offline events) is given up on with a transport
//! reason and the chain moves on; the spinner naming it is drawn only on a terminal (a real pty
//! from `script`), and never into a pipe or under --json.

use std::path::PathBuf;

use crate::ask::{command_provider, fixture, project, run, salve};
use crate::support::Tree;

/// The fake codex that prints "Reconnecting... waiting for network" forever.
fn retrying() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../salve-llm/tests/fixtures/retrying.sh")
        .to_string_lossy()
        .into_owned()
}

/// A chain of the hung codex, then a provider that fixes `app.py`.
fn hung_then_good() -> Tree {
    let codex = format!(
        "[providers.codex]\nkind = \"command\"\npreset = \"codex\"\ncommand = [\"sh\", {:?}, \"codex\"]\ntimeout_secs = 300\n",
        retrying()
    );
    project(&format!(
        "{codex}{}[chains]\ndefault = [\"codex\", \"good\"]\n",
        command_provider("good", &["sh", &fixture("fix.sh")])
    ))
}

/// Bytes a spinner would leave: carriage returns, escape sequences, braille spinner frames.
fn has_spinner_bytes(text: &str) -> bool {
    text.contains('\r')
        || text.contains('\u{1b}')
        || text.chars().any(|c| ('\u{2800}'..='\u{28ff}').contains(&c))
}

#[test]
fn a_hung_provider_is_given_up_on_with_a_transport_reason_and_no_spinner_reaches_a_pipe() {
    let tree = hung_then_good();
    let mut cmd = salve(&tree);
    cmd.args(["ask", "fix the typo"]);
    let out = run(cmd);
    out.code(0);
    assert!(
        out.stdout.contains("codex (call 1): error")
            && out.stdout.contains("transport: gave up after"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("ask: applied"), "{}", out.stdout);
    assert!(!has_spinner_bytes(&out.stderr), "{:?}", out.stderr);
    assert!(!out.stderr.contains("waiting for"), "{}", out.stderr);
    assert_eq!(tree.read("app.py"), "print('hello')\n");

    let tree = hung_then_good();
    let mut cmd = salve(&tree);
    cmd.args(["--json", "ask", "fix the typo"]);
    let out = run(cmd);
    out.code(0);
    let json = out.json();
    assert_eq!(json["attempts"][0]["provider"], "codex");
    assert_eq!(json["attempts"][0]["failure"], "transport");
    assert!(!has_spinner_bytes(&out.stderr), "{:?}", out.stderr);
}

#[test]
fn fix_in_a_pipe_prints_no_phases_and_no_spinner() {
    let tree = project(&format!(
        "{}[chains]\ndefault = [\"good\"]\n",
        command_provider("good", &["sh", &fixture("fix_confident.sh")])
    ));
    let check = tree.outside().join("check.sh");
    std::fs::write(&check, "grep -q hello app.py\n").unwrap();
    let mut cmd = salve(&tree);
    cmd.args(["fix", "--no-commit", "--", "sh", check.to_str().unwrap()]);
    let out = run(cmd);
    out.code(0);
    assert!(!has_spinner_bytes(&out.stderr), "{:?}", out.stderr);
    assert!(!out.stderr.contains("running the check"), "{}", out.stderr);
}

/// `salve ARGS` in `tree` on a pseudo-terminal (util-linux `script`): what the terminal got,
/// stdout and stderr together. `None` when `script` is not installed.
fn on_a_terminal(tree: &Tree, args: &str) -> Option<(bool, String)> {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        crate::skip::skip("progress", "`script` (util-linux) is not installed");
        return None;
    }
    let home = tree.outside().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("salve");
    let line = format!("{:?} {args}", bin.to_string_lossy());
    let out = std::process::Command::new("script")
        .args(["-qfec", &line, "/dev/null"])
        .current_dir(&tree.root)
        .env("HOME", &home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("TERM", "xterm")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    Some((
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

#[test]
fn on_a_terminal_a_large_apply_shows_a_spinner() {
    let tree = project("");
    let lines = 20_000;
    let mut reply = format!("--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{lines} @@\n");
    for i in 0..lines {
        reply.push_str(&format!(
            "+line {i:05} of a large generated file, padded out to sixty\n"
        ));
    }
    assert!(reply.len() > 1 << 20);
    let file = tree.outside().join("reply.diff");
    std::fs::write(&file, &reply).unwrap();
    let Some((ok, screen)) = on_a_terminal(&tree, &format!("apply {:?}", file.to_string_lossy()))
    else {
        return;
    };
    assert!(ok, "{screen}");
    assert!(screen.contains("applying a 1."), "{screen}");
    assert_eq!(tree.read("big.txt").lines().count(), lines);
}

#[test]
fn on_a_terminal_the_spinner_names_the_provider_and_its_transport_errors() {
    let tree = hung_then_good();
    let Some((ok, screen)) = on_a_terminal(&tree, "ask 'fix the typo'") else {
        return;
    };
    assert!(ok, "{screen}");
    assert!(screen.contains("ask: applied"), "{screen}");
    // The spinner: its elapsed time, the provider waited for, and codex's own words.
    assert!(screen.contains("s] waiting for codex"), "{screen}");
    assert!(
        screen.contains("waiting for codex: Reconnecting... waiting for"),
        "{screen}"
    );
    assert!(screen.contains("codex failed: transport"), "{screen}");
    assert!(has_spinner_bytes(&screen), "{screen}");
}
