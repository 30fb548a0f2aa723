//! `salve checkpoint`, `checkpoints`, `restore`, `undo` and `commit` through the real binary:
//! exit codes, JSON, and that the user's files, index and HEAD end up exactly as promised.

use crate::support::{Run, Tree};

fn run(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

fn repo() -> Tree {
    let tree = Tree::git();
    tree.write("src/lib.rs", "pub fn a() {}\n")
        .write("README.md", "readme\n")
        .commit("init");
    tree
}

fn staged_and_cached(tree: &Tree) -> (String, String, String) {
    (
        tree.git_cmd(&["ls-files", "-s"]),
        tree.git_cmd(&["diff", "--cached"]),
        tree.git_cmd(&["rev-parse", "HEAD"]),
    )
}

#[test]
fn checkpoint_restore_and_undo_round_trip() {
    let tree = repo();
    tree.write("src/lib.rs", "pub fn a() { staged }\n");
    tree.git_cmd(&["add", "src/lib.rs"]);
    tree.write("notes.txt", "untracked notes\n");
    let files = tree.snapshot();
    let index = staged_and_cached(&tree);

    let taken = run(&tree, &["checkpoint", "-m", "before the change", "--json"]);
    taken.code(0);
    let id = taken.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(tree.snapshot(), files, "checkpoint must not touch files");
    assert_eq!(
        staged_and_cached(&tree),
        index,
        "checkpoint must not touch the index"
    );

    tree.write("src/lib.rs", "broken(\n");
    std::fs::remove_file(tree.path("notes.txt")).unwrap();
    tree.write("junk.rs", "junk\n");
    tree.git_cmd(&["add", "-A"]);
    let damaged = tree.snapshot();
    let damaged_index = staged_and_cached(&tree);

    let restored = run(&tree, &["restore", &id]);
    restored.code(0);
    assert!(
        restored
            .stdout
            .contains(&format!("restored checkpoint {id}")),
        "{}",
        restored.stdout
    );
    assert!(
        restored.stdout.contains("salve undo"),
        "{}",
        restored.stdout
    );
    assert_eq!(tree.snapshot(), files);
    assert_eq!(staged_and_cached(&tree), index);

    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.snapshot(), damaged);
    assert_eq!(staged_and_cached(&tree), damaged_index);
    let redo = run(&tree, &["undo", "--json"]);
    redo.code(0);
    // The undo took back a restore by restoring in turn, and is logged so.
    assert_eq!(redo.json()["undone"]["kind"], "undo-restore");
    assert_eq!(tree.snapshot(), files);
    assert_eq!(staged_and_cached(&tree), index);
}

#[test]
fn checkpoints_lists_newest_first_with_counts() {
    let tree = repo();
    tree.write("a.txt", "a\n");
    let first = run(&tree, &["checkpoint", "-m", "one", "--json"]);
    first.code(0);
    tree.write("b.txt", "b\n");
    run(&tree, &["checkpoint", "-m", "two"]).code(0);

    let listed = run(&tree, &["checkpoints", "--json"]);
    listed.code(0);
    let items = listed.json();
    let items = items.as_array().unwrap();
    assert_eq!(items.len(), 2);
    let mut seen: Vec<(String, u64)> = items
        .iter()
        .map(|c| {
            (
                c["message"].as_str().unwrap().to_owned(),
                c["files_changed"].as_u64().unwrap(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(seen, vec![("one".to_owned(), 1), ("two".to_owned(), 2)]);

    let human = run(&tree, &["checkpoints"]);
    human.code(0);
    assert!(human.stdout.starts_with("ID"), "{}", human.stdout);
    assert!(human.stdout.contains(first.json()["id"].as_str().unwrap()));
}

#[test]
fn checkpoint_drop_by_id_and_age() {
    let tree = repo();
    let taken = run(&tree, &["checkpoint", "--json"]);
    let id = taken.json()["id"].as_str().unwrap().to_owned();
    let none = run(&tree, &["checkpoint", "drop", "--older-than", "1d"]);
    none.code(0);
    assert!(
        none.stdout.contains("no checkpoint to drop"),
        "{}",
        none.stdout
    );
    let dropped = run(&tree, &["checkpoint", "drop", &id[..8], "--json"]);
    dropped.code(0);
    assert_eq!(dropped.json()["dropped"][0], id.as_str());
    assert_eq!(tree.git_cmd(&["for-each-ref", "refs/salve/"]), "");
    run(&tree, &["checkpoint", "drop"]).code(2);
    run(&tree, &["checkpoint", "drop", "--older-than", "soon"]).code(2);
    let unknown = run(&tree, &["checkpoint", "drop", "abcdef"]);
    unknown.code(2);
    assert!(
        unknown.stderr.contains("no checkpoint"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn skipped_paths_are_named_on_stderr() {
    let tree = repo();
    tree.write("big.bin", vec![b'x'; 4096]);
    let taken = run(&tree, &["checkpoint", "--max-file-size", "1K", "--json"]);
    taken.code(0);
    assert!(
        taken.stderr.contains("not in the checkpoint: big.bin"),
        "{}",
        taken.stderr
    );
    assert_eq!(taken.json()["skipped"][0]["reason"], "too_large");
    assert_eq!(taken.json()["skipped"][0]["bytes"], 4096);
}

#[test]
fn restore_refusals_exit_1_and_change_nothing() {
    let tree = repo();
    tree.write(".gitignore", "*.log\n")
        .write("thing", "file\n")
        .commit("thing");
    let id = run(&tree, &["checkpoint", "--json"]).json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::remove_file(tree.path("thing")).unwrap();
    tree.write("thing/keep.log", "ignored, must survive\n");
    let before = tree.snapshot();
    let blocked = run(&tree, &["restore", &id, "--json"]);
    blocked.code(1);
    assert_eq!(blocked.json()["error"]["kind"], "blocked");
    assert!(
        blocked.stderr.contains("thing/keep.log"),
        "{}",
        blocked.stderr
    );
    assert_eq!(tree.snapshot(), before);

    let unknown = run(&tree, &["restore", "0123456789"]);
    unknown.code(2);
    assert!(
        unknown.stderr.contains("no checkpoint"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn undo_with_nothing_to_undo_exits_1() {
    let tree = repo();
    let out = run(&tree, &["undo"]);
    out.code(1);
    assert!(out.stderr.contains("nothing to undo"), "{}", out.stderr);
}

#[test]
fn outside_a_repository_is_exit_2_with_a_hint() {
    let tree = Tree::plain();
    let out = run(&tree, &["checkpoint"]);
    out.code(2);
    assert!(
        out.stderr.contains("not inside a git repository"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("Hint:"), "{}", out.stderr);
}

#[test]
fn commit_files_leaves_the_users_other_work_alone() {
    let tree = repo();
    tree.write("src/other.rs", "other v1\n").commit("other");
    // The user's own work: one staged change, one unstaged change, one untracked file.
    tree.write("README.md", "readme, staged by the user\n");
    tree.git_cmd(&["add", "README.md"]);
    tree.write("src/other.rs", "other v2, unstaged\n");
    tree.write("scratch.txt", "untracked\n");
    let cached = tree.git_cmd(&["diff", "--cached"]);
    let unstaged = tree.git_cmd(&["diff"]);
    let old_head = tree.git_cmd(&["rev-parse", "HEAD"]);
    // The fix.
    tree.write("src/lib.rs", "pub fn a() { fixed }\n");
    let files = tree.snapshot();

    let out = run(
        &tree,
        &[
            "-C",
            "src",
            "commit",
            "--files",
            "lib.rs",
            "-m",
            "repair a",
            "--failed-task",
            "cargo test",
            "--verified",
            "passed",
        ],
    );
    out.code(0);
    assert!(out.stdout.starts_with("[main "), "{}", out.stdout);
    assert_eq!(tree.git_cmd(&["rev-parse", "HEAD^"]), old_head);
    assert_eq!(
        tree.git_cmd(&["diff", "--name-only", "HEAD^", "HEAD"]),
        "src/lib.rs\n"
    );
    assert_eq!(
        tree.git_cmd(&["log", "-1", "--format=%B"]),
        "fix(lib): repair a\n\nFailed tasks: cargo test\nLocal verification: passed\n\n"
    );
    assert_eq!(tree.git_cmd(&["diff", "--cached"]), cached);
    assert_eq!(tree.git_cmd(&["diff"]), unstaged);
    assert_eq!(tree.snapshot(), files);

    let again = run(&tree, &["commit", "--files", "src/lib.rs", "-m", "again"]);
    again.code(1);
    assert!(
        again.stderr.contains("nothing to commit"),
        "{}",
        again.stderr
    );
    run(&tree, &["commit", "--files", "../elsewhere.rs", "-m", "x"]).code(2);
    run(&tree, &["commit", "-m", "no files"]).code(2);
}

#[test]
fn commit_claims_no_verification_unless_told_and_takes_a_type() {
    let tree = repo();
    tree.write("src/lib.rs", "pub fn a() { faster }\n");
    run(
        &tree,
        &[
            "commit",
            "--files",
            "src/lib.rs",
            "-m",
            "speed up a",
            "--type",
            "perf",
        ],
    )
    .code(0);
    assert_eq!(
        tree.git_cmd(&["log", "-1", "--format=%B"]),
        "perf(lib): speed up a\n\nFailed tasks: none\n\n"
    );
    tree.write("src/lib.rs", "pub fn a() { fixed }\n");
    let bad = run(
        &tree,
        &[
            "commit",
            "--files",
            "src/lib.rs",
            "-m",
            "x",
            "--type",
            "Fix!",
        ],
    );
    bad.code(2);
}

#[test]
fn commit_hooks_run_unless_no_verify() {
    let tree = repo();
    tree.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\necho 'hook says no' >&2\nexit 1\n",
    );
    let hook = tree.path(".git/hooks/pre-commit");
    let mut perms = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).unwrap();
    tree.write("src/lib.rs", "pub fn a() { fixed }\n");
    let head = tree.git_cmd(&["rev-parse", "HEAD"]);
    let stopped = run(
        &tree,
        &["commit", "--files", "src/lib.rs", "-m", "x", "--json"],
    );
    stopped.code(1);
    assert_eq!(stopped.json()["error"]["kind"], "hook_failed");
    assert!(
        stopped.stderr.contains("hook says no"),
        "{}",
        stopped.stderr
    );
    assert_eq!(tree.git_cmd(&["rev-parse", "HEAD"]), head);
    let forced = run(
        &tree,
        &[
            "commit",
            "--files",
            "src/lib.rs",
            "-m",
            "x",
            "--no-verify",
            "--json",
        ],
    );
    forced.code(0);
    assert_eq!(forced.json()["parent"], head.trim());
    assert_eq!(forced.json()["changed"][0], "src/lib.rs");
}

const RENAME_A_TO_B: &str = "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn a() {}\n+pub fn b() {}\n```\n";

#[test]
fn apply_takes_a_checkpoint_that_undo_goes_back_to() {
    let tree = repo();
    tree.write("wip.txt", "untracked work in progress\n");
    tree.write("README.md", "readme, staged\n");
    tree.git_cmd(&["add", "README.md"]);
    let files = tree.snapshot();
    let index = staged_and_cached(&tree);

    let applied = tree.apply(RENAME_A_TO_B, &["--json"]);
    applied.code(0);
    let json = applied.json();
    assert!(json["checkpoint"].is_string(), "{json}");
    assert_eq!(tree.read("src/lib.rs"), "pub fn b() {}\n");
    let kept = tree.git_cmd(&["ls-tree", "--name-only", "refs/salve/catalog"]);
    assert_eq!(kept.lines().count(), 1, "{kept}");
    let human = tree.apply(RENAME_A_TO_B, &["-R"]);
    human.code(0);
    assert!(human.stderr.contains("salve undo"), "{}", human.stderr);
    assert_eq!(tree.read("src/lib.rs"), "pub fn a() {}\n");
    // Undo the reverse apply, then the apply itself: back to where the user was.
    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.read("src/lib.rs"), "pub fn b() {}\n");
    tree.apply(RENAME_A_TO_B, &["-R", "--no-checkpoint"])
        .code(0);
    tree.apply(RENAME_A_TO_B, &[]).code(0);
    run(&tree, &["undo"]).code(0);
    assert_eq!(tree.snapshot(), files);
    assert_eq!(staged_and_cached(&tree), index);
}

#[test]
fn apply_no_checkpoint_and_check_take_none() {
    let tree = repo();
    tree.apply(RENAME_A_TO_B, &["--check"]).code(0);
    let applied = tree.apply(RENAME_A_TO_B, &["--no-checkpoint", "--json"]);
    applied.code(0);
    assert!(applied.json().get("checkpoint").is_none());
    assert_eq!(tree.read("src/lib.rs"), "pub fn b() {}\n");
    assert_eq!(tree.git_cmd(&["for-each-ref", "refs/salve/"]), "");
    run(&tree, &["undo"]).code(1);
}

/// The checkpoint of a default apply is taken while the edits are placed: it must leave
/// salve's temporary files out wherever they are (a live salve's too, which no sweep removes),
/// and a refused apply must publish nothing.
#[test]
fn apply_checkpoints_leave_out_temp_files_and_refusals_publish_none() {
    let tree = repo();
    // A dead run's leftovers, where this apply writes and elsewhere: both swept.
    let swept = "src/.salve-tmp-999999-Zz09aa-lib.rs.tmp";
    let swept_elsewhere = "docs/.salve-tmp-999999-Zz09cc-y.md.tmp";
    // A live process's (this test's) temporary file: a write in progress, left alone.
    let left = format!("docs/.salve-tmp-{}-Zz09bb-x.md.tmp", std::process::id());
    let left = left.as_str();
    tree.write(swept, "half-written\n")
        .write(swept_elsewhere, "half-written\n")
        .write(left, "half-written\n");
    let refs = |tree: &Tree| tree.git_cmd(&["for-each-ref", "refs/salve"]);
    let before = refs(&tree);

    let refused = tree.apply(
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn nowhere() {}\n+pub fn b() {}\n",
        &[],
    );
    refused.code(1);
    assert_eq!(
        refs(&tree),
        before,
        "a refused apply publishes no checkpoint"
    );

    let applied = tree.apply(
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn a() {}\n+pub fn b() {}\n",
        &["--json"],
    );
    applied.code(0);
    let json = applied.json();
    let id = json["checkpoint"]
        .as_str()
        .unwrap_or_else(|| panic!("no checkpoint in {json}"))
        .to_owned();
    let files = tree.git_cmd(&["ls-tree", "-r", "--name-only", &id]);
    assert!(files.contains("src/lib.rs"), "{files}");
    assert!(
        !files.contains(".salve-tmp-"),
        "a temp file was captured:\n{files}"
    );
    assert!(
        !tree.path(swept).exists(),
        "the leftover where the apply writes is swept"
    );
    assert!(
        !tree.path(swept_elsewhere).exists(),
        "a dead process's leftover elsewhere is swept"
    );
    assert!(
        tree.path(left).exists(),
        "a live process's temporary file is not touched"
    );
    assert_eq!(
        std::fs::read_to_string(tree.path("src/lib.rs")).unwrap(),
        "pub fn b() {}\n"
    );
}

/// Two `salve apply` processes editing different lines of one file at the same time: the second
/// waits for the first, reads the file it wrote, and lands its own edit on it. Both land, round
/// after round; never two "applied" with one edit lost.
#[test]
fn concurrent_writers_never_lose_an_update() {
    let tree = Tree::git();
    let original = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n";
    tree.write("f.txt", original).commit("start");
    let edit = |old: &str, new: &str, before: &str, after: &str, name: &str| {
        let reply = format!(
            "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n {before}\n-{old}\n+{new}\n {after}\n```\n"
        );
        let path = tree.outside().join(name);
        std::fs::write(&path, reply).unwrap();
        path
    };
    let first = edit("two", "TWO", "one", "three", "first.md");
    let second = edit("eight", "EIGHT", "seven", "nine", "second.md");
    let spawn = |reply: &std::path::Path| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_salve"));
        cmd.current_dir(&tree.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["--json", "apply"])
            .arg(reply)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    for round in 0..20 {
        tree.write("f.txt", original);
        let (a, b) = (spawn(&first), spawn(&second));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let text = tree.read("f.txt");
        for (out, word) in [(&a, "TWO"), (&b, "EIGHT")] {
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(text.contains(word), "round {round}: {word} lost:\n{text}");
        }
        assert_eq!(
            text, "one\nTWO\nthree\nfour\nfive\nsix\nseven\nEIGHT\nnine\n",
            "round {round}"
        );
    }
}

/// Undo takes back the apply alone: a later hand edit to another file, and a file created
/// since, stay. A second undo redoes. When the applied lines changed since, undo refuses and
/// names the file; --force restores the checkpoint instead.
#[test]
fn undo_reverts_the_apply_and_keeps_later_work() {
    let tree = Tree::git();
    tree.write("a.py", "one = 1\ntwo = 2\nthree = 3\n")
        .write("b.py", "b = 1\n")
        .commit("start");
    let reply = "```diff\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n one = 1\n-two = 2\n+two = 22\n three = 3\n```\n";
    tree.apply(reply, &[]).code(0);
    // Later work by hand.
    tree.write("b.py", "b = 1\nb2 = 2\n");
    tree.write("c.py", "new file\n");
    tree.write("a.py", "zero = 0\none = 1\ntwo = 22\nthree = 3\n");
    let undone = run(&tree, &["undo", "--json"]);
    undone.code(0);
    let json = undone.json();
    assert_eq!(json["undone"]["kind"], "apply");
    assert_eq!(json["reverted"]["written"], serde_json::json!(["a.py"]));
    assert_eq!(tree.read("a.py"), "zero = 0\none = 1\ntwo = 2\nthree = 3\n");
    assert_eq!(
        tree.read("b.py"),
        "b = 1\nb2 = 2\n",
        "later work in another file stays"
    );
    assert_eq!(
        tree.read("c.py"),
        "new file\n",
        "a file created since stays"
    );
    // Undo of the undo: the apply is back, the later work still there.
    run(&tree, &["undo"]).code(0);
    assert_eq!(
        tree.read("a.py"),
        "zero = 0\none = 1\ntwo = 22\nthree = 3\n"
    );
    assert_eq!(tree.read("b.py"), "b = 1\nb2 = 2\n");

    // A conflict: the applied line itself changed since.
    let tree = Tree::git();
    tree.write("a.py", "one = 1\ntwo = 2\nthree = 3\n")
        .commit("start");
    tree.apply(reply, &[]).code(0);
    tree.write("a.py", "one = 1\ntwo = 222\nthree = 3\n");
    tree.write("d.py", "mine\n");
    let refused = run(&tree, &["undo", "--json"]);
    refused.code(1);
    let json = refused.json();
    assert_eq!(json["error"]["kind"], "undo_conflict");
    assert!(json["error"]["message"].as_str().unwrap().contains("a.py"));
    assert_eq!(
        tree.read("a.py"),
        "one = 1\ntwo = 222\nthree = 3\n",
        "nothing changed"
    );
    run(&tree, &["undo", "--force"]).code(0);
    assert_eq!(tree.read("a.py"), "one = 1\ntwo = 2\nthree = 3\n");
}

/// An untracked file over the checkpoint's size limit is still captured when an apply is about
/// to write it, so undo brings it back (and never reports success for nothing).
#[test]
fn a_large_untracked_file_an_apply_writes_can_be_undone() {
    let tree = Tree::git();
    tree.write("small.txt", "tracked\n").commit("start");
    let mut big = String::from("first line\n");
    while big.len() < 11 << 20 {
        big.push_str("filler filler filler filler filler filler filler filler\n");
    }
    tree.write("big.log", &big);
    let reply = "```diff\n--- a/big.log\n+++ b/big.log\n@@ -1,2 +1,2 @@\n-first line\n+changed line\n filler filler filler filler filler filler filler filler\n```\n";
    tree.apply(reply, &["--no-record"]).code(0);
    assert!(tree.read("big.log").starts_with("changed line\n"));
    let undone = run(&tree, &["undo", "--json"]);
    undone.code(0);
    assert_eq!(
        undone.json()["restore"]["written"],
        serde_json::json!(["big.log"]),
        "{}",
        undone.stdout
    );
    assert_eq!(tree.read("big.log"), big);
}

/// A repository is found without git (from the file system), but the checkpoint needs git: with
/// git missing from PATH, apply writes nothing and says how to go on; `--no-checkpoint` writes.
#[test]
fn apply_in_a_repository_without_git_refuses_to_write_unchecked() {
    let tree = repo();
    let reply = "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-pub fn a() {}\n+pub fn b() {}\n```\n";
    let path = tree.outside().join("reply.md");
    std::fs::write(&path, reply).unwrap();
    let no_git = tree.outside().join("empty-bin");
    std::fs::create_dir_all(&no_git).unwrap();
    let apply = |extra: &[&str]| {
        let mut cmd = tree.salve();
        cmd.env("PATH", &no_git).arg("apply").args(extra).arg(&path);
        Run::from(cmd.output().unwrap())
    };
    let refused = apply(&[]);
    refused.code(2);
    assert!(
        refused.stderr.contains("git was not found"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("--no-checkpoint"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        tree.read("src/lib.rs"),
        "pub fn a() {}\n",
        "nothing was written"
    );
    apply(&["--no-checkpoint", "--no-record"]).code(0);
    assert_eq!(tree.read("src/lib.rs"), "pub fn b() {}\n");
}
