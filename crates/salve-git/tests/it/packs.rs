//! Checkpoints stored as packs: git accepts them, they stay few, and every checkpoint can be
//! restored and undone, before and after salve merges its packs and after the user's own gc.

use std::path::PathBuf;

use salve_git::checkpoint::{self, create, list};
use salve_git::{restore, undo};

use crate::support::TestRepo;

fn pack_files(t: &TestRepo) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(t.root.join(".git/objects/pack"))
        .map(|l| l.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    found
}

fn packs(t: &TestRepo) -> Vec<PathBuf> {
    pack_files(t)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .collect()
}

/// `git count-objects -v` as name → value.
fn counts(t: &TestRepo) -> std::collections::HashMap<String, u64> {
    t.git(&["count-objects", "-v"])
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_owned(), v.parse().unwrap_or(0)))
        .collect()
}

fn take(t: &TestRepo, operation: Option<&str>) -> create::Outcome {
    let options = create::Options {
        operation: operation.map(str::to_owned),
        ..create::Options::default()
    };
    checkpoint::create(&t.repo(), &options).unwrap()
}

fn git_checks_every_pack(t: &TestRepo) {
    for pack in packs(t) {
        let pack = pack.to_str().unwrap();
        t.git(&["verify-pack", pack]);
        t.git(&["index-pack", "--verify", pack]);
    }
    t.git(&["fsck", "--strict"]);
    assert_eq!(counts(t)["garbage"], 0);
}

#[test]
fn a_checkpoint_writes_one_pack_and_no_loose_object() {
    let t = TestRepo::new();
    t.write("a.txt", "one\n");
    t.commit_all("init");
    t.write("a.txt", "changed, not committed\n");
    t.write("dir/new.txt", "untracked\n");
    let loose_before = counts(&t)["count"];
    let taken = take(&t, None);
    assert_eq!(counts(&t)["count"], loose_before, "no loose object written");
    let files = pack_files(&t);
    assert_eq!(files.len(), 2, "one pack and its index: {files:?}");
    git_checks_every_pack(&t);
    let at = |path: &str| t.git(&["show", &format!("{}:{path}", taken.commit)]);
    assert_eq!(at("a.txt"), "changed, not committed");
    assert_eq!(at("dir/new.txt"), "untracked");
    // The catalog reads back in process and by git alike.
    let listed = list(&t.repo(), &list::Options::default()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].commit, taken.commit);
}

/// 200 checkpoints: salve's packs stay at most ten, `git gc --auto` has nothing to do, and
/// the first checkpoint, long since merged into a larger pack, restores; undo works too.
#[test]
fn two_hundred_checkpoints_keep_the_packs_few_and_every_one_restores() {
    let t = TestRepo::new();
    t.write("a.txt", "0\n");
    t.commit_all("init");
    let mut taken = Vec::new();
    let mut most = 0;
    for n in 1..=200 {
        t.write("a.txt", format!("{n}\n"));
        taken.push(take(&t, Some("apply")));
        most = most.max(packs(&t).len());
    }
    assert!(most <= 10, "at most ten packs at any time, saw {most}");
    git_checks_every_pack(&t);
    assert_eq!(
        list(&t.repo(), &list::Options::default()).unwrap().len(),
        200
    );
    let before = pack_files(&t);
    t.git(&["-c", "gc.autoDetach=false", "gc", "--auto"]);
    assert_eq!(
        pack_files(&t),
        before,
        "gc --auto started from salve's packs"
    );

    // The first checkpoint held "1"; restoring it brings that back.
    restore(&t.repo(), &taken[0].id, &restore::Options::default()).unwrap();
    assert_eq!(t.read("a.txt"), b"1\n");
    // Undo takes the restore back: the last state, "200".
    undo(&t.repo(), &undo::Options::default()).unwrap();
    assert_eq!(t.read("a.txt"), b"200\n");
    git_checks_every_pack(&t);
}

/// The user's `git gc` and `git repack -a -d` fold salve's packs into their own (with
/// deltas, which salve leaves git to read); checkpoints before and after still restore.
#[test]
fn checkpoints_restore_after_the_users_gc_and_repack() {
    let t = TestRepo::new();
    t.write("a.txt", "base\n");
    t.commit_all("init");
    let mut taken = Vec::new();
    for n in 0..15 {
        t.write("a.txt", format!("before gc {n}\n"));
        taken.push(take(&t, Some("apply")));
    }
    // repack first: after `gc` wrote a commit-graph, `repack -a -d` drops the unreachable
    // commits it names and git's own fsck then complains, with or without salve.
    t.git(&["repack", "-q", "-a", "-d"]);
    assert_eq!(packs(&t).len(), 1);
    for n in 0..3 {
        t.write("a.txt", format!("after gc {n}\n"));
        taken.push(take(&t, Some("apply")));
    }
    t.git(&["gc", "-q"]);
    t.write("a.txt", "last\n");
    taken.push(take(&t, Some("apply")));
    assert_eq!(
        list(&t.repo(), &list::Options::default()).unwrap().len(),
        19
    );
    restore(&t.repo(), &taken[2].id, &restore::Options::default()).unwrap();
    assert_eq!(t.read("a.txt"), b"before gc 2\n");
    restore(&t.repo(), &taken[16].id, &restore::Options::default()).unwrap();
    assert_eq!(t.read("a.txt"), b"after gc 1\n");
    undo(&t.repo(), &undo::Options::default()).unwrap();
    assert_eq!(t.read("a.txt"), b"before gc 2\n");
    git_checks_every_pack(&t);
}

/// In a SHA-256 repository salve writes through git (loose), as before: checkpoints and
/// restore work.
#[test]
fn a_sha256_repository_still_checkpoints_and_restores() {
    let t = TestRepo::new();
    std::fs::remove_dir_all(t.root.join(".git")).unwrap();
    t.git(&["init", "-q", "-b", "main", "--object-format=sha256"]);
    t.git(&["config", "user.name", "Test User"]);
    t.git(&["config", "user.email", "test@example.com"]);
    t.write("a.txt", "one\n");
    t.commit_all("init");
    t.write("a.txt", "two\n");
    let first = take(&t, Some("apply"));
    assert_eq!(first.commit.len(), 64);
    t.write("a.txt", "three\n");
    take(&t, Some("apply"));
    restore(&t.repo(), &first.id, &restore::Options::default()).unwrap();
    assert_eq!(t.read("a.txt"), b"two\n");
    t.git(&["fsck", "--strict"]);
}
