//! Signals and kills on real processes: Ctrl-C (SIGINT) during `salve ask` kills the provider's
//! whole process tree and records the run `interrupted`; a SIGKILL in the middle of a large
//! write leaves a temporary file that `salve gc` and the next apply sweep.

#![cfg(unix)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Run, Tree};

/// The `salve` binary as a child process of its own (so the test can signal it), with the same
/// private home as [`Tree::salve`], so the trust given there holds.
fn spawn_salve(tree: &Tree, args: &[&str]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_salve"));
    cmd.args(args)
        .current_dir(&tree.root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("NO_COLOR", "1")
        .env("HOME", tree.home())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, _) in std::env::vars() {
        if key.starts_with("SALVE_") {
            cmd.env_remove(key);
        }
    }
    cmd.spawn().unwrap()
}

/// Send `signal` (`-INT`, `-KILL`) with the `kill` command: no unsafe code, no libc.
fn send(signal: &str, pid: u32) {
    let sent = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {signal} {pid}");
}

/// Poll until `ready` says yes, failing the test after `limit`.
fn wait_until(limit: Duration, what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Wait for `child` to exit (killing it after `limit`, which fails the test).
fn finish(mut child: Child, limit: Duration) -> Run {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("salve did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Run::from(child.wait_with_output().unwrap())
}

/// Whether a process runs: a zombie (exited, not yet reaped) does not.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

fn pids_in(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// The runs `salve log --json` lists, newest first.
fn runs(tree: &Tree) -> Vec<serde_json::Value> {
    let out = Run::from(
        tree.salve()
            .args(["log", "--json", "--limit", "0"])
            .output()
            .unwrap(),
    );
    out.code(0);
    out.json().as_array().unwrap().clone()
}

#[test]
fn ctrl_c_during_ask_kills_the_provider_tree_and_records_the_run_interrupted() {
    let tree = Tree::git();
    tree.write("app.py", "print('helo')\n");
    // The provider is a shell that starts a child and waits: its pid and the child's go to a
    // file outside the tree, so the test knows the whole tree it must see gone.
    let pids = tree.outside().join("provider.pids");
    let script = format!(
        "echo $$ > '{p}'; sleep 30 & echo $! >> '{p}'; wait",
        p = pids.display()
    );
    tree.write(
        "salve.toml",
        format!(
            "[providers.slow]\nkind = \"command\"\ncommand = [\"sh\", \"-c\", {script:?}]\n\
             timeout_secs = 60\n\n[chains]\ndefault = [\"slow\"]\n"
        ),
    );
    tree.commit("start");
    tree.trust();
    let before = tree.snapshot();

    let child = spawn_salve(&tree, &["ask", "fix the typo", "--target", "app.py"]);
    wait_until(Duration::from_secs(20), "the provider to start", || {
        pids_in(&pids).len() == 2
    });
    let provider = pids_in(&pids);
    send("-INT", child.id());
    let out = finish(child, Duration::from_secs(10));

    out.code(130);
    assert!(out.stdout.contains("stopped by the user"), "{out:?}");
    // Give the kernel a moment to tear the group down, then nothing of it may be left.
    wait_until(Duration::from_secs(5), "the provider's tree to die", || {
        provider.iter().all(|&pid| !alive(pid))
    });
    assert_eq!(tree.snapshot(), before, "the work tree changed");
    let runs = runs(&tree);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["kind"], "ask");
    assert_eq!(runs[0]["status"], "interrupted", "{:?}", runs[0]);
}
