//! Crash safety of `salve apply`: a process killed between file writes leaves every file either
//! its old or its new content, never half-written; what it leaves behind is recognisable and the
//! next `salve apply` clears it and finishes the edit.
//!
//! The kill points come from the transaction's test hooks (see
//! `salve_engine::transaction::hooks`): an abort right after N files were put in place, an abort
//! right before the next rename, and a pause during which the test sends a real `SIGKILL`. Every
//! N from "nothing written yet" to "everything written" is tried against a real git repository
//! and a reply that creates, modifies and deletes files in several directories.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::os::unix::process::ExitStatusExt as _;
use std::process::{Command, Stdio};

use salve_engine::transaction::{hooks, TEMP_PREFIX};

use crate::support::{Run, Tree};

/// The files the reply modifies; each gets several multi-line hunks, so a file cut short or
/// mixed from old and new would not match either side.
const MODIFIED: [&str; 3] = ["src/engine.py", "lib/util/helpers.py", "README.md"];
const CREATED: &str = "pkg/fresh/new_module.py";
const DELETED: &str = "old/legacy.txt";
/// A file the reply does not touch.
const UNTOUCHED: &str = "keep.txt";

/// One file put in place per target: the count of "writes" the hooks see.
const WRITES: usize = MODIFIED.len() + 2;

fn old_text(name: &str) -> String {
    (1..=140)
        .map(|i| format!("{name} line {i}: the quick brown fox jumps over the lazy dog {i}\n"))
        .collect()
}

/// The old text with a block replaced, a block removed and a block inserted.
fn new_text(name: &str) -> String {
    let mut out = String::new();
    for (i, line) in old_text(name).lines().enumerate() {
        let n = i + 1;
        match n {
            10..=24 => out.push_str(&format!("{name} REWRITTEN {n}: a different sentence\n")),
            60..=70 => {}
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
        if n == 110 {
            for k in 0..8 {
                out.push_str(&format!("{name} inserted {k}: brand new material\n"));
            }
        }
    }
    out
}

/// Every target path with its content before and after the edit (`None`: no file).
struct Case {
    tree: Tree,
    reply: String,
    old: BTreeMap<String, Option<Vec<u8>>>,
    new: BTreeMap<String, Option<Vec<u8>>>,
}

impl Case {
    /// A committed repository in the old state, and a reply (a `git diff`) that takes it to the
    /// new state.
    fn new() -> Case {
        let tree = Tree::git();
        let mut old = BTreeMap::new();
        let mut new = BTreeMap::new();
        for path in MODIFIED {
            tree.write(path, old_text(path));
            old.insert(path.to_owned(), Some(old_text(path).into_bytes()));
            new.insert(path.to_owned(), Some(new_text(path).into_bytes()));
        }
        let legacy = old_text("legacy");
        tree.write(DELETED, &legacy);
        old.insert(DELETED.to_owned(), Some(legacy.into_bytes()));
        new.insert(DELETED.to_owned(), None);
        let fresh = new_text("fresh");
        old.insert(CREATED.to_owned(), None);
        new.insert(CREATED.to_owned(), Some(fresh.clone().into_bytes()));
        tree.write(UNTOUCHED, "not part of the edit\n");
        tree.commit("init");

        // Let git write the reply: put the new state in the tree, diff, and put the old back.
        for path in MODIFIED {
            tree.write(path, new_text(path));
        }
        tree.write(CREATED, &fresh);
        std::fs::remove_file(tree.path(DELETED)).unwrap();
        tree.git_cmd(&["add", "-N", CREATED]);
        let diff = tree.git_cmd(&["diff", "--no-color", "--no-ext-diff"]);
        tree.git_cmd(&["reset", "-q"]);
        std::fs::remove_dir_all(tree.path("pkg")).unwrap();
        tree.write(DELETED, old[DELETED].as_ref().unwrap());
        for path in MODIFIED {
            tree.write(path, old_text(path));
        }
        assert_eq!(tree.git_cmd(&["status", "--porcelain"]), "");
        assert!(diff.matches("diff --git").count() == WRITES, "{diff}");

        let reply = format!("Here is the change you asked for:\n\n```diff\n{diff}```\n");
        Case {
            tree,
            reply,
            old,
            new,
        }
    }

    fn reply_file(&self) -> std::path::PathBuf {
        let file = self.tree.outside().join("reply.md");
        std::fs::write(&file, &self.reply).unwrap();
        file
    }

    /// `salve apply` on the reply, with one hook armed. Core dumps are turned off so an abort
    /// cannot drop a `core` file into the tree.
    fn hooked(&self, hook: &str, n: usize) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("ulimit -c 0; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_salve"))
            .arg("apply")
            .arg(self.reply_file())
            .current_dir(&self.tree.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("NO_COLOR", "1")
            .env_remove(hooks::ABORT_AFTER_WRITES)
            .env_remove(hooks::ABORT_BEFORE_RENAME)
            .env_remove(hooks::PAUSE_AFTER_WRITES)
            .env(hook, n.to_string());
        cmd
    }

    /// Every target is byte for byte its old or its new content, exactly `placed` of them are
    /// new, the untouched file is untouched, and anything else in the tree is one of salve's
    /// recognisable temporary files.
    #[track_caller]
    fn assert_old_or_new(&self, placed: usize, what: &str) {
        let snapshot = self.tree.snapshot();
        let mut new_count = 0;
        for (path, old) in &self.old {
            let now = snapshot.get(path).cloned();
            let new = &self.new[path];
            if &now == new {
                new_count += 1;
            } else {
                assert!(
                    &now == old,
                    "{what}: {path} is neither old nor new:\n{}",
                    String::from_utf8_lossy(now.as_deref().unwrap_or(b"<missing>"))
                );
            }
        }
        assert_eq!(new_count, placed, "{what}: files in their new state");
        assert_eq!(
            snapshot.get(UNTOUCHED).map(Vec::as_slice),
            Some(&b"not part of the edit\n"[..]),
            "{what}"
        );
        for path in snapshot.keys() {
            if self.old.contains_key(path) || path == UNTOUCHED {
                continue;
            }
            let name = path.rsplit('/').next().unwrap();
            assert!(
                name.starts_with(TEMP_PREFIX) && name.ends_with(".tmp"),
                "{what}: unexpected file left behind: {path}"
            );
        }
    }

    /// A normal `salve apply` finishes the edit (or finds it already done), and leaves exactly
    /// the new state: no temporary files, and `git status` shows only the edit itself.
    #[track_caller]
    fn assert_recovers(&self, what: &str) {
        let run: Run = self.tree.apply(&self.reply, &["--json"]);
        run.code(0);
        let outcome = run.json()["outcome"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            outcome == "applied" || outcome == "already_applied",
            "{what}: outcome {outcome}\n{}",
            run.stdout
        );
        let mut expected: BTreeMap<String, Vec<u8>> = self
            .new
            .iter()
            .filter_map(|(p, c)| Some((p.clone(), c.clone()?)))
            .collect();
        expected.insert(UNTOUCHED.to_owned(), b"not part of the edit\n".to_vec());
        assert_tree(&self.tree, &expected, &format!("{what}: after recovery"));
        let status = self
            .tree
            .git_cmd(&["status", "--porcelain", "--untracked-files=all"]);
        let mut lines: Vec<&str> = status.lines().collect();
        lines.sort_unstable();
        assert_eq!(
            lines,
            [
                " D old/legacy.txt",
                " M README.md",
                " M lib/util/helpers.py",
                " M src/engine.py",
                "?? pkg/fresh/new_module.py",
            ],
            "{what}: git status after recovery"
        );
    }
}

/// The tree holds exactly `expected`, with a readable message naming the paths that differ.
#[track_caller]
fn assert_tree(tree: &Tree, expected: &BTreeMap<String, Vec<u8>>, what: &str) {
    let actual = tree.snapshot();
    let extra: Vec<&String> = actual
        .keys()
        .filter(|p| !expected.contains_key(*p))
        .collect();
    let missing: Vec<&String> = expected
        .keys()
        .filter(|p| !actual.contains_key(*p))
        .collect();
    let differ: Vec<&String> = expected
        .iter()
        .filter(|(p, c)| actual.get(*p).is_some_and(|a| a != *c))
        .map(|(p, _)| p)
        .collect();
    assert!(
        extra.is_empty() && missing.is_empty() && differ.is_empty(),
        "{what}: extra files {extra:?}, missing files {missing:?}, wrong content {differ:?}"
    );
}

/// Run the hooked binary to its abort and check the tree it leaves.
fn abort_at(hook: &str, n: usize) {
    let case = Case::new();
    let what = format!("{hook}={n}");
    let out = case.hooked(hook, n).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        Some(6),
        "{what}: expected an abort (SIGABRT), got {:?}\n{stderr}",
        out.status
    );
    assert!(
        stderr.contains(&format!("{} {n}", hooks::ABORT_MARKER)),
        "{what}: the hook did not fire where expected\n{stderr}"
    );
    case.assert_old_or_new(n, &what);
    case.assert_recovers(&what);
}

#[test]
fn an_abort_after_any_number_of_writes_leaves_files_old_or_new() {
    for n in 0..=WRITES {
        abort_at(hooks::ABORT_AFTER_WRITES, n);
    }
}

#[test]
fn an_abort_before_any_rename_leaves_files_old_or_new() {
    for n in 0..WRITES {
        abort_at(hooks::ABORT_BEFORE_RENAME, n);
    }
}

#[test]
fn a_hook_that_never_matches_changes_nothing() {
    // There is no rename after the last write, so this hook never fires: the run must be an
    // ordinary, complete apply.
    let case = Case::new();
    let out = case
        .hooked(hooks::ABORT_BEFORE_RENAME, WRITES)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    case.assert_old_or_new(WRITES, "unmatched hook");
    case.assert_recovers("unmatched hook");
}

#[test]
fn a_real_sigkill_between_writes_leaves_files_old_or_new() {
    for n in 0..=WRITES {
        let case = Case::new();
        let what = format!("SIGKILL after {n} writes");
        let mut child = case
            .hooked(hooks::PAUSE_AFTER_WRITES, n)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_pause(&mut child, n, &what);
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "{what}: {status:?}");
        case.assert_old_or_new(n, &what);
        case.assert_recovers(&what);
    }
}

/// Ctrl-C (SIGINT) or SIGTERM in the middle of the writes: salve stops, puts back what it had
/// written, removes its temporary files, and says so. Nothing of the reply is left behind.
#[test]
fn an_interrupt_between_writes_rolls_back_and_leaves_no_temporary_files() {
    for (n, signal) in [(0, "-INT"), (1, "-INT"), (WRITES - 1, "-TERM")] {
        let case = Case::new();
        let what = format!("{signal} after {n} writes");
        let mut child = case
            .hooked(hooks::PAUSE_AFTER_WRITES, n)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = wait_for_pause(&mut child, n, &what);
        let sent = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        let status = child.wait().unwrap();
        // 130, as a shell reports SIGINT, with a hint that says nothing was written.
        assert_eq!(status.code(), Some(130), "{what}: {status:?}\n{rest}");
        assert!(rest.contains("stopped by the user"), "{what}: {rest}");
        assert!(
            rest.contains("the files are as they were"),
            "{what}: {rest}"
        );
        assert!(!rest.contains("salve help"), "{what}: {rest}");
        let files = case.tree.snapshot();
        let litter: Vec<&String> = files.keys().filter(|p| p.contains(TEMP_PREFIX)).collect();
        assert!(litter.is_empty(), "{what}: {litter:?}");
        for (path, old) in &case.old {
            assert_eq!(files.get(path), old.as_ref(), "{what}: {path}");
        }
        // The record says the same: stopped, nothing written.
        let log = Run::from(
            case.tree
                .salve()
                .args(["log", "--json", "--limit", "1"])
                .output()
                .unwrap(),
        );
        let run = &log.code(0).json()[0];
        assert_eq!(run["status"], "interrupted", "{what}: {run}");
        assert_eq!(run["files"].as_u64().unwrap_or(0), 0, "{what}: {run}");
    }
}

/// Ctrl-C once every file is in place: the apply finishes rather than dying with the run
/// unrecorded. Exit 0, the record says `applied` with the files, and undo takes it back.
#[test]
fn an_interrupt_after_the_last_write_finishes_records_and_can_be_undone() {
    let case = Case::new();
    let mut child = case
        .hooked(hooks::PAUSE_AFTER_WRITES, WRITES)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = wait_for_pause(&mut child, WRITES, "SIGINT after the writes");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{rest}");
    assert!(
        rest.contains("stopped by the user after the files were written"),
        "{rest}"
    );
    case.assert_old_or_new(WRITES, "SIGINT after the writes");
    let log = Run::from(
        case.tree
            .salve()
            .args(["log", "--json", "--limit", "1"])
            .output()
            .unwrap(),
    );
    let run = &log.code(0).json()[0];
    assert_eq!(run["status"], "applied", "{run}");
    assert_eq!(run["files"].as_u64(), Some(WRITES as u64), "{run}");
    Run::from(case.tree.salve().arg("undo").output().unwrap()).code(0);
    let files = case.tree.snapshot();
    for (path, old) in &case.old {
        assert_eq!(files.get(path), old.as_ref(), "after undo: {path}");
    }
}

/// Read `child`'s stderr until it says it paused after `n` writes: it is then asleep exactly at
/// the hook point. End of output first means it exited without pausing: the test fails. Returns
/// the rest of stderr.
fn wait_for_pause(
    child: &mut std::process::Child,
    n: usize,
    what: &str,
) -> BufReader<std::process::ChildStderr> {
    let marker = format!("{} {n}", hooks::PAUSE_MARKER);
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        seen.push_str(&line);
        if line.trim_end() == marker {
            break;
        }
        line.clear();
    }
    assert!(
        seen.lines().any(|l| l == marker),
        "{what}: no pause\n{seen}"
    );
    stderr
}
