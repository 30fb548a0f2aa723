//! The data-loss suite: each case sets up work a user could lose, checkpoints it, lets an "AI
//! change" damage it, restores, and asserts that every file's bytes, the index, the staged diff
//! and HEAD are exactly as before.

use salve_git::checkpoint::{self, create};
use salve_git::{restore, undo};

use crate::support::{non_utf8_name, Entry, TestRepo};

fn take(t: &TestRepo) -> create::Outcome {
    checkpoint::create(&t.repo(), &create::Options::default()).unwrap()
}

/// Take a checkpoint logged as the state before a salve change, as `salve apply` does.
fn take_before_change(t: &TestRepo) -> create::Outcome {
    let options = create::Options {
        operation: Some("apply".into()),
        ..Default::default()
    };
    checkpoint::create(&t.repo(), &options).unwrap()
}

fn restore_to(t: &TestRepo, id: &str) -> restore::Outcome {
    restore(&t.repo(), id, &restore::Options::default()).unwrap()
}

fn base_repo() -> TestRepo {
    let t = TestRepo::new();
    t.write("src/lib.rs", "pub fn a() {}\n");
    t.write("README.md", "readme\n");
    t.commit_all("init");
    t
}

/// What a careless AI change does to the usual files.
fn damage(t: &TestRepo) {
    t.write("src/lib.rs", "pub fn broken(\n");
    t.remove("README.md");
    t.write("src/generated.rs", "// new\n");
}

#[test]
fn untracked_file_survives() {
    let t = base_repo();
    t.write("notes/todo.txt", "my untracked notes\n");
    let before = t.state();
    let cp = take(&t);
    damage(&t);
    t.remove("notes/todo.txt");
    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
}

#[test]
fn dirty_ignored_file_is_never_touched() {
    let t = base_repo();
    t.write(".gitignore", "*.log\n/target/\n");
    t.commit_all("ignore");
    t.write("debug.log", "first\n");
    t.write("target/out.bin", "build output\n");
    let mut expected = t.state();
    let cp = take(&t);
    damage(&t);
    t.write("debug.log", "second, written after the checkpoint\n");
    restore_to(&t, &cp.id);
    // Everything is back except the ignored file, which keeps its newer content.
    expected.files.insert(
        "debug.log".into(),
        Entry::File {
            executable: false,
            bytes: "second, written after the checkpoint\\n".into(),
        },
    );
    assert_eq!(t.state(), expected);
}

#[test]
fn file_under_a_changed_gitignore_survives() {
    let t = base_repo();
    t.write(".gitignore", "*.log\n");
    t.commit_all("ignore");
    t.write("notes.txt", "notes kept untracked\n");
    let before = t.state();
    let cp = take(&t);
    // The change starts ignoring notes.txt and rewrites it: the snapshot before the restore no
    // longer sees it, but the restore must neither lose the checkpoint's version nor the new one.
    t.write(".gitignore", "*.log\nnotes.txt\n");
    t.write("notes.txt", "rewritten while ignored\n");
    damage(&t);
    let changed = t.state();
    let outcome = restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
    assert_eq!(
        outcome.captured,
        vec![std::path::PathBuf::from("notes.txt")]
    );
    // The overwritten ignored version was captured first, so undo brings it back.
    undo(&t.repo(), &undo::Options::default()).unwrap();
    assert_eq!(t.state(), changed);
}

#[test]
fn nested_repository_survives_untouched() {
    let t = base_repo();
    let nested = t.at(t.root.join("third_party/dep"));
    std::fs::create_dir_all(&nested.root).unwrap();
    nested.git(&["init", "-q"]);
    nested.write("dep.c", "int dep;\n");
    nested.git(&["add", "dep.c"]);
    nested.git(&[
        "-c",
        "user.name=n",
        "-c",
        "user.email=n@x",
        "commit",
        "-q",
        "-m",
        "dep",
    ]);
    nested.write("scratch.txt", "untracked in nested\n");
    let before = t.state();
    let nested_head = nested.head();
    let cp = take(&t);
    damage(&t);
    nested.write("dep.c", "int dep = 2;\n");
    let mut expected = before.clone();
    expected.files.insert(
        "third_party/dep/dep.c".into(),
        Entry::File {
            executable: false,
            bytes: "int dep = 2;\\n".into(),
        },
    );
    let nested_git_before = t.state().files;
    restore_to(&t, &cp.id);
    let after = t.state();
    // The nested repository is exactly as the change left it: not restored, not removed.
    for (path, entry) in &nested_git_before {
        if path.starts_with("third_party/") {
            assert_eq!(after.file(path), Some(entry), "{path}");
        }
    }
    assert_eq!(after, expected);
    assert_eq!(nested.head(), nested_head);
}

#[test]
fn submodule_directory_is_left_alone() {
    let t = base_repo();
    let sub = t.at(t.root.join("sub"));
    std::fs::create_dir_all(&sub.root).unwrap();
    sub.git(&["init", "-q"]);
    sub.write("s.txt", "s\n");
    sub.git(&["add", "s.txt"]);
    sub.git(&[
        "-c",
        "user.name=n",
        "-c",
        "user.email=n@x",
        "commit",
        "-q",
        "-m",
        "s",
    ]);
    let sub_head = sub.head().unwrap();
    t.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{sub_head},sub"),
    ]);
    t.git(&["commit", "-q", "-m", "gitlink"]);
    let before = t.state();
    let cp = take(&t);
    damage(&t);
    sub.write("s.txt", "changed inside the submodule\n");
    restore_to(&t, &cp.id);
    assert_eq!(sub.read("s.txt"), b"changed inside the submodule\n");
    assert_eq!(t.read("src/lib.rs"), b"pub fn a() {}\n");
    assert_eq!(t.state().index, before.index);
    assert_eq!(t.state().head, before.head);
}

#[test]
fn staged_but_uncommitted_change_survives() {
    let t = base_repo();
    t.write("src/lib.rs", "pub fn a() { staged }\n");
    t.write("src/new.rs", "staged new file\n");
    t.git(&["add", "src/lib.rs", "src/new.rs"]);
    t.write("src/lib.rs", "pub fn a() { staged and then edited }\n");
    let before = t.state();
    assert!(before.cached_diff.contains("staged new file"));
    let cp = take(&t);
    damage(&t);
    // The change also stages and unstages things.
    t.git(&["add", "-A"]);
    t.git(&["rm", "-q", "--cached", "src/new.rs"]);
    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
}

#[test]
fn restoring_twice_is_stable() {
    let t = base_repo();
    t.write("src/lib.rs", "pub fn a() { 1 }\n");
    t.git(&["add", "src/lib.rs"]);
    t.write("extra.txt", "x\n");
    let before = t.state();
    let cp = take(&t);
    damage(&t);
    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
    let second = restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
    assert!(second.written.is_empty(), "{:?}", second.written);
    assert!(second.deleted.is_empty(), "{:?}", second.deleted);
}

#[test]
fn undo_of_undo_is_redo() {
    let t = base_repo();
    t.write("wip.txt", "work in progress\n");
    let original = t.state();
    take_before_change(&t);
    damage(&t);
    t.git(&["add", "src/generated.rs"]);
    let changed = t.state();
    assert_ne!(changed, original);

    let first = undo(&t.repo(), &undo::Options::default()).unwrap();
    assert_eq!(first.undone.kind, "apply");
    assert_eq!(t.state(), original);
    let second = undo(&t.repo(), &undo::Options::default()).unwrap();
    assert_eq!(second.undone.kind, "undo-restore");
    assert_eq!(t.state(), changed);
    undo(&t.repo(), &undo::Options::default()).unwrap();
    assert_eq!(t.state(), original);
}

#[test]
fn undo_with_nothing_logged_says_so() {
    let t = base_repo();
    let err = undo(&t.repo(), &undo::Options::default()).unwrap_err();
    assert!(matches!(err, undo::Error::NothingToUndo), "{err}");
}

#[test]
fn restore_can_itself_be_undone() {
    let t = base_repo();
    let before = t.state();
    let cp = take(&t);
    damage(&t);
    t.write("later.txt", "written after the checkpoint\n");
    let damaged = t.state();
    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
    undo(&t.repo(), &undo::Options::default()).unwrap();
    assert_eq!(t.state(), damaged);
}

#[test]
fn empty_repository() {
    let t = TestRepo::new();
    t.write("first.txt", "first\n");
    t.git(&["add", "first.txt"]);
    t.write("second.txt", "second\n");
    let before = t.state();
    assert_eq!(before.head, None);
    let cp = take(&t);
    t.write("first.txt", "changed\n");
    t.remove("second.txt");
    t.git(&["add", "-A"]);
    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
}

#[test]
fn completely_empty_repository() {
    let t = TestRepo::new();
    let before = t.state();
    let cp = take(&t);
    t.write("made.txt", "by the change\n");
    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
}

#[test]
fn file_replaced_by_directory_and_back() {
    let t = base_repo();
    t.write("thing", "a file\n");
    t.commit_all("thing");
    let as_file = t.state();
    let cp_file = take(&t);
    t.remove("thing");
    t.write("thing/inner.txt", "now a directory\n");
    t.write("thing/deeper/x.txt", "x\n");
    let as_dir = t.state();
    let cp_dir = take(&t);

    restore_to(&t, &cp_file.id);
    assert_eq!(t.state(), as_file);
    restore_to(&t, &cp_dir.id);
    assert_eq!(t.state(), as_dir);
    restore_to(&t, &cp_file.id);
    assert_eq!(t.state(), as_file);
}

#[test]
fn directory_holding_an_ignored_file_blocks_the_restore_and_nothing_changes() {
    let t = base_repo();
    t.write(".gitignore", "*.log\n");
    t.write("thing", "a file\n");
    t.commit_all("thing");
    let cp = take(&t);
    t.remove("thing");
    t.write("thing/inner.txt", "dir\n");
    t.write("thing/keep.log", "ignored, must not be deleted\n");
    damage(&t);
    let damaged = t.state();
    let listed = |t: &TestRepo| -> Vec<String> {
        salve_git::checkpoint::list(&t.repo(), &Default::default())
            .unwrap()
            .into_iter()
            .map(|c| c.commit)
            .collect()
    };
    let checkpoints_before = listed(&t);
    let err = restore(&t.repo(), &cp.id, &restore::Options::default()).unwrap_err();
    match &err {
        restore::Error::Blocked(conflicts) => {
            assert_eq!(conflicts.len(), 1, "{conflicts:?}");
            assert_eq!(
                conflicts[0].kind,
                restore::ConflictKind::DirectoryInTheWay {
                    blocking: "thing/keep.log".into()
                }
            );
        }
        other => panic!("expected Blocked, got {other}"),
    }
    assert_eq!(t.state(), damaged);
    // The checkpoint the restore took first is dropped again.
    assert_eq!(listed(&t), checkpoints_before);
}

#[test]
fn symlinks_exec_bits_crlf_and_odd_names() {
    let t = base_repo();
    t.write("target.txt", "target\n");
    t.symlink("target.txt", "link");
    t.symlink("does/not/exist", "dangling");
    t.write("run.sh", "#!/bin/sh\necho hi\n");
    t.chmod("run.sh", 0o755);
    t.write("windows.txt", "line one\r\nline two\r\n");
    t.write("mixed.txt", "lf\ncrlf\r\nlone cr\r");
    t.write("with space.txt", "spaces\n");
    t.write("new\nline.txt", "newline in name\n");
    t.write("tab\there.txt", "tab in name\n");
    t.write("quote\"and\\back.txt", "quotes\n");
    t.write(non_utf8_name(), "latin-1 name\n");
    t.write("dir with space/inner file.txt", "inner\n");
    t.commit_all("odd files");
    t.write("untracked\nnewline.txt", "untracked odd name\n");
    t.write("with space.txt", "spaces, modified\n");
    t.chmod("target.txt", 0o755);
    let before = t.state();
    let cp = take(&t);

    t.remove("link");
    t.symlink("elsewhere", "link");
    t.remove("dangling");
    t.write("dangling", "now a file\n");
    t.chmod("run.sh", 0o644);
    t.chmod("target.txt", 0o644);
    t.write("windows.txt", "line one\nline two\n");
    t.write("mixed.txt", "normalised\n");
    t.remove("with space.txt");
    t.remove("new\nline.txt");
    t.remove("untracked\nnewline.txt");
    t.write(non_utf8_name(), "changed\n");
    t.remove("dir with space");
    t.git(&["add", "-A"]);

    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
}

#[test]
fn crlf_round_trips_under_autocrlf() {
    let t = TestRepo::new();
    t.git(&["config", "core.autocrlf", "true"]);
    t.write("win.txt", "one\r\ntwo\r\n");
    t.write(".gitattributes", "*.bin binary\n");
    t.write("data.bin", "raw\r\nbytes\n");
    t.commit_all("init");
    t.write("win.txt", "one\r\ntwo\r\nthree\r\n");
    let before = t.state();
    let cp = take(&t);
    t.write("win.txt", "broken\n");
    t.write("data.bin", "changed\n");
    restore_to(&t, &cp.id);
    assert_eq!(t.state(), before);
}

#[test]
fn skipped_big_untracked_file_is_never_deleted_or_overwritten() {
    let t = base_repo();
    let limits = create::Limits {
        max_file_bytes: 100,
        ..create::Limits::default()
    };
    t.write("model.bin", vec![b'm'; 500]);
    let options = create::Options {
        limits: limits.clone(),
        ..Default::default()
    };
    let cp = checkpoint::create(&t.repo(), &options).unwrap();
    assert_eq!(cp.skipped.len(), 1);
    damage(&t);
    t.write("model.bin", vec![b'n'; 600]);
    let restore_options = restore::Options {
        limits,
        ..restore::Options::default()
    };
    restore(&t.repo(), &cp.id, &restore_options).unwrap();
    assert_eq!(t.read("model.bin"), vec![b'n'; 600]);
    assert_eq!(t.read("src/lib.rs"), b"pub fn a() {}\n");
}

#[test]
fn head_is_never_moved() {
    let t = base_repo();
    let cp = take(&t);
    t.write("src/lib.rs", "pub fn b() {}\n");
    t.commit_all("later commit");
    let head = t.head();
    let outcome = restore_to(&t, &cp.id);
    assert!(outcome.head_differs);
    assert_eq!(t.head(), head);
    assert_eq!(t.read("src/lib.rs"), b"pub fn a() {}\n");
    // The staged state is the checkpoint's, so the commit shows as reverted in the index.
    assert_eq!(t.git(&["diff", "--cached", "--name-only"]), "src/lib.rs");
}

#[test]
fn restore_refuses_during_a_merge() {
    let t = base_repo();
    let cp = take(&t);
    t.git(&["checkout", "-q", "-b", "other"]);
    t.write("src/lib.rs", "other\n");
    t.commit_all("other");
    t.git(&["checkout", "-q", "main"]);
    t.write("src/lib.rs", "main\n");
    t.commit_all("main");
    let out = t.git_output(&["merge", "-q", "other"]);
    assert!(!out.status.success(), "the merge should conflict");
    let during = t.state();
    let err = restore(&t.repo(), &cp.id, &restore::Options::default()).unwrap_err();
    assert!(matches!(err, restore::Error::InProgress("merge")), "{err}");
    assert!(err.to_string().contains("merge is in progress"));
    assert_eq!(t.state(), during);
}

#[test]
fn restore_waits_for_index_lock_then_names_it_and_changes_nothing() {
    let t = base_repo();
    let cp = take(&t);
    damage(&t);
    let damaged = t.state();
    let lock = t.root.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let options = restore::Options {
        lock_wait: std::time::Duration::from_millis(200),
        ..restore::Options::default()
    };
    let err = restore(&t.repo(), &cp.id, &options).unwrap_err();
    assert!(err.to_string().contains(".git/index.lock"), "{err}");
    assert!(lock.exists(), "a lock must never be deleted");
    std::fs::remove_file(&lock).unwrap();
    assert_eq!(t.state(), damaged);
}

#[test]
fn restore_in_linked_worktree() {
    let t = base_repo();
    let wt_path = t.root.parent().unwrap().join("linked");
    t.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        wt_path.to_str().unwrap(),
    ]);
    let wt = t.at(wt_path);
    wt.write("src/lib.rs", "linked edit\n");
    wt.git(&["add", "src/lib.rs"]);
    wt.write("wt-only.txt", "untracked in linked\n");
    let main_before = t.state();
    let before = wt.state();
    let cp = take(&wt);
    damage(&wt);
    restore(&wt.repo(), &cp.id, &restore::Options::default()).unwrap();
    assert_eq!(wt.state(), before);
    assert_eq!(t.state(), main_before);
}
