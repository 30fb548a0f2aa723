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

/// A text file of about `mb` megabytes, one numbered line after another.
fn big_text(mb: usize) -> String {
    let line = "of the big file: filler text that makes it large enough to take a while\n";
    let count = mb * 1024 * 1024 / (line.len() + 8);
    let mut text = String::with_capacity(mb * 1024 * 1024 + 64);
    for i in 0..count {
        text.push_str(&format!("{i:07} {line}"));
    }
    text
}

/// A diff that changes the first line of [`big_text`].
fn first_line_diff(path: &str, text: &str) -> String {
    let mut lines = text.lines();
    let (first, second) = (lines.next().unwrap(), lines.next().unwrap());
    format!("--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n-{first}\n+CHANGED\n {second}\n")
}

/// salve's temporary files in the tree (not in `.git`), by name only: reading a big file's
/// content on every poll would be far slower than the write it watches.
fn litter(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![tree.root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(path);
            } else if entry
                .file_name()
                .to_string_lossy()
                .starts_with(salve_engine::transaction::TEMP_PREFIX)
            {
                let rel = path.strip_prefix(&tree.root).unwrap();
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out
}

#[test]
fn a_sigkill_mid_write_leaves_a_temporary_file_that_gc_removes() {
    let tree = Tree::git();
    tree.write("keep.txt", "kept\n");
    tree.commit("start");
    let text = big_text(80);
    tree.write("data/big.txt", &text);
    let reply = tree.outside().join("reply.diff");
    std::fs::write(&reply, first_line_diff("data/big.txt", &text)).unwrap();
    let reply = reply.to_string_lossy().into_owned();

    let mut child = spawn_salve(
        &tree,
        &["apply", "--no-checkpoint", "--max-file-size", "1G", &reply],
    );
    // The temporary file appears when its write begins: kill salve then, mid-write. Polled
    // tightly, as the write of 80 MB may take only a few tens of milliseconds.
    let start = Instant::now();
    while litter(&tree).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "salve finished before its temporary file was seen"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    send("-KILL", child.id());
    let out = finish(child, Duration::from_secs(10));
    assert_eq!(out.code, -1, "salve was not killed: {out:?}");
    let left = litter(&tree);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with("data/"), "{left:?}");
    assert!(
        tree.git_cmd(&["status", "--porcelain", "--untracked-files=all"])
            .contains(".salve-tmp-"),
        "git status does not show the litter"
    );
    assert_eq!(
        tree.read("data/big.txt").len(),
        text.len(),
        "the file changed"
    );

    let gc = Run::from(tree.salve().args(["gc", "--json"]).output().unwrap());
    let json = gc.code(0).json();
    assert_eq!(json["work_tree_temp_files"][0], left[0].as_str(), "{json}");
    assert!(json["temp_files_removed"].as_u64().unwrap() >= 1, "{json}");
    assert!(litter(&tree).is_empty(), "{:?}", litter(&tree));
    assert!(tree.read("data/big.txt") == text, "gc touched the file");
}

/// Every apply sweeps the temporary files that dead salve processes left anywhere in the tree,
/// not only in the directories it writes; a live process's file stays.
#[test]
fn an_apply_elsewhere_in_the_tree_sweeps_dead_processes_temporary_files() {
    let tree = Tree::git();
    tree.write("src/a.txt", "one\ntwo\n");
    tree.commit("start");
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let dead_file = format!("deep/dir/.salve-tmp-{dead}-AbCdEf-big.txt.tmp");
    // This test process is alive: its file is someone's write in progress.
    let live_file = format!(
        "deep/.salve-tmp-{}-GhIjKl-other.txt.tmp",
        std::process::id()
    );
    tree.write(&dead_file, "half written");
    tree.write(&live_file, "being written");
    tree.apply(
        "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n",
        &[],
    )
    .code(0);
    assert_eq!(tree.read("src/a.txt"), "one\nthree\n");
    assert!(
        !tree.exists(&dead_file),
        "the dead process's file is still there"
    );
    assert!(tree.exists(&live_file), "a live process's file was removed");
}
