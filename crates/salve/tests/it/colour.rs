//! Colour (issue 13 point 12): `--color always` paints reports, diffs, hints, `log` and `show`;
//! `--color never`, `NO_COLOR`, and `auto` on a pipe leave every byte plain; `--json` is never
//! painted. A pseudo-terminal from util-linux `script` stands in for a person at a terminal.

use std::process::Command;

use crate::support::{Run, Tree};

const ESC: char = '\u{1b}';
const RED: &str = "\u{1b}[31m";
const GREEN: &str = "\u{1b}[32m";

/// A reply whose one hunk quotes a line the file does not have: refused, with a candidate.
const MISQUOTED: &str = "```diff\n--- a/app.py\n+++ b/app.py\n@@ -5,2 +5,2 @@\n-    message = 'hallo ' + name\n+    message = 'hello ' + name\n     return message\n```\n";
/// A reply that places.
const FIX: &str = "```diff\n--- a/app.py\n+++ b/app.py\n@@ -5,2 +5,2 @@\n-    message = 'helo ' + name\n+    message = 'hello ' + name\n     return message\n```\n";

const APP: &str = "import sys\n\n\ndef greet(name):\n    message = 'helo ' + name\n    return message\n\n\ndef main():\n    print(greet(sys.argv[1]))\n";

fn project() -> Tree {
    let tree = Tree::git();
    tree.write("app.py", APP).commit("start");
    tree
}

/// `salve apply` with `args` and `env`, NO_COLOR unset unless `env` sets it.
fn apply(tree: &Tree, reply: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let file = tree.outside().join("reply.md");
    std::fs::write(&file, reply).unwrap();
    let mut cmd = tree.salve();
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.arg("apply").args(args).arg(&file);
    Run::from(cmd.output().unwrap())
}

/// `text` without its ANSI escape sequences.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == ESC {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn always_paints_refused_statuses_and_the_diff() {
    let tree = project();
    let refused = apply(&tree, MISQUOTED, &["--color", "always"], &[]);
    refused.code(1);
    let out = &refused.stdout;
    assert!(out.contains(&format!("{RED}not found{ESC}[0m")), "{out:?}");
    assert!(
        out.contains(&format!("{ESC}[1m{RED}refused: nothing written")),
        "{out:?}"
    );
    // Painted, it says what the plain report says.
    let plain = apply(&tree, MISQUOTED, &["--color", "never"], &[]);
    assert_eq!(strip(out), plain.stdout);

    let check = apply(&tree, FIX, &["--check", "--diff", "--color", "always"], &[]);
    check.code(0);
    let diff = &check.stdout;
    assert!(
        diff.contains(&format!("{RED}-    message = 'helo ' + name{ESC}[0m\n")),
        "{diff:?}"
    );
    assert!(
        diff.contains(&format!("{GREEN}+    message = 'hello ' + name{ESC}[0m\n")),
        "{diff:?}"
    );
    assert!(diff.contains(&format!("{ESC}[36m@@ -")), "{diff:?}");
    assert!(
        check.stderr.contains(&format!("{GREEN}applied")),
        "{:?}",
        check.stderr
    );
    // Stripped of colour it is the diff `--color never` prints, byte for byte.
    let never = apply(&tree, FIX, &["--check", "--diff", "--color", "never"], &[]);
    assert_eq!(strip(diff), never.stdout);
    assert!(never.stdout.contains("+    message = 'hello ' + name\n"));
    assert_eq!(tree.read("app.py"), APP, "--check wrote nothing");
}

#[test]
fn never_no_color_and_a_pipe_stay_plain() {
    let tree = project();
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: [Case; 4] = [
        (&["--color", "never"], &[("CLICOLOR_FORCE", "1")]),
        // NO_COLOR wins over CLICOLOR_FORCE under auto.
        (&[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]),
        (&["--color", "auto"], &[("NO_COLOR", "1")]),
        // Auto on a pipe.
        (&[], &[("TERM", "xterm-256color")]),
    ];
    for (args, env) in cases {
        for reply in [MISQUOTED, FIX] {
            let mut all = vec!["--check", "--diff"];
            all.extend_from_slice(args);
            let run = apply(&tree, reply, &all, env);
            assert!(
                !run.stdout.contains(ESC),
                "{args:?} {env:?}: {:?}",
                run.stdout
            );
            assert!(
                !run.stderr.contains(ESC),
                "{args:?} {env:?}: {:?}",
                run.stderr
            );
        }
    }
    // The control: CLICOLOR_FORCE alone does paint a pipe, so the cases above were not plain
    // by accident.
    let forced = apply(&tree, MISQUOTED, &[], &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.stdout.contains(RED), "{:?}", forced.stdout);
}

#[test]
fn json_is_never_painted() {
    let tree = project();
    for reply in [MISQUOTED, FIX] {
        let painted = apply(
            &tree,
            reply,
            &["--json", "--check", "--color", "always"],
            &[],
        );
        let plain = apply(
            &tree,
            reply,
            &["--json", "--check", "--color", "never"],
            &[],
        );
        assert!(!painted.stdout.contains(ESC), "{:?}", painted.stdout);
        assert_eq!(painted.stdout, plain.stdout);
        let with_diff = apply(
            &tree,
            reply,
            &["--json", "--check", "--diff", "--color", "always"],
            &[],
        );
        assert!(!with_diff.stdout.contains(ESC), "{:?}", with_diff.stdout);
        with_diff.json();
    }
    // An error under --json: data on stdout stays plain, the words on stderr are painted.
    let mut cmd = tree.salve();
    cmd.args(["--json", "--color", "always", "apply", "--base", "v9", "-"])
        .write_stdin(FIX);
    let err = Run::from(cmd.output().unwrap());
    err.code(2);
    assert!(!err.stdout.contains(ESC), "{:?}", err.stdout);
    assert_eq!(err.json()["error"]["kind"], "unknown_revision");
    assert!(
        err.stderr.contains(&format!("{ESC}[1m{RED}Error:")),
        "{:?}",
        err.stderr
    );
    assert!(
        err.stderr.contains(&format!("{ESC}[36mHint:")),
        "{:?}",
        err.stderr
    );
}

#[test]
fn log_and_show_are_painted_too() {
    let tree = project();
    apply(&tree, MISQUOTED, &[], &[]).code(1);
    apply(&tree, FIX, &[], &[]).code(0);
    let salve = |args: &[&str]| {
        let mut cmd = tree.salve();
        cmd.args(args);
        Run::from(cmd.output().unwrap())
    };
    let log = salve(&["--color", "always", "log"]);
    log.code(0);
    assert!(
        log.stdout.contains(&format!("{GREEN}applied")),
        "{:?}",
        log.stdout
    );
    assert!(
        log.stdout.contains(&format!("{RED}refused")),
        "{:?}",
        log.stdout
    );
    // Columns are padded before they are painted: stripped, the listing is the plain one.
    assert_eq!(strip(&log.stdout), salve(&["log"]).stdout);
    let id = salve(&["--json", "log"]).json()[0]["short_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let show = salve(&["--color", "always", "show", &id]);
    assert!(
        show.stdout.contains(&format!("{GREEN}applied")),
        "{:?}",
        show.stdout
    );
    assert_eq!(strip(&show.stdout), salve(&["show", &id]).stdout);
    let diff = salve(&["--color", "always", "show", &id, "--diff"]);
    assert!(
        diff.stdout
            .contains(&format!("{GREEN}+    message = 'hello '")),
        "{:?}",
        diff.stdout
    );
    assert!(!salve(&["show", &id, "--diff"]).stdout.contains(ESC));
}

/// `salve ARGS` in `tree` on a pseudo-terminal (util-linux `script`), with `env`; its output.
#[cfg(target_os = "linux")]
fn on_a_terminal(tree: &Tree, args: &str, env: &[(&str, &str)]) -> String {
    let bin = assert_cmd::cargo::cargo_bin("salve");
    let command = format!("'{}' {args}", bin.display());
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(&tree.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .expect("util-linux `script` runs salve on a pseudo-terminal");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[cfg(target_os = "linux")]
#[test]
fn auto_paints_a_terminal_unless_no_color() {
    let tree = project();
    let reply = tree.outside().join("reply.md");
    std::fs::write(&reply, MISQUOTED).unwrap();
    let args = format!("apply --check '{}'", reply.display());
    let painted = on_a_terminal(&tree, &args, &[]);
    assert!(painted.contains(&format!("{RED}not found")), "{painted:?}");
    let plain = on_a_terminal(&tree, &args, &[("NO_COLOR", "1")]);
    assert!(plain.contains("not found"), "{plain:?}");
    assert!(!plain.contains(ESC), "{plain:?}");
    let never = on_a_terminal(&tree, &format!("--color never {args}"), &[]);
    assert!(!never.contains(ESC), "{never:?}");
}
