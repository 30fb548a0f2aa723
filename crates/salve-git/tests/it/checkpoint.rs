//! Checkpoints capture everything and touch nothing.

use std::path::PathBuf;

use salve_git::checkpoint::{self, create, drop, list};
use salve_git::GitError;

use crate::support::TestRepo;

fn index_bytes_and_mtime(t: &TestRepo) -> (Vec<u8>, std::time::SystemTime) {
    let path = t.root.join(".git/index");
    (
        std::fs::read(&path).unwrap(),
        std::fs::metadata(&path).unwrap().modified().unwrap(),
    )
}

#[test]
fn captures_worktree_and_staged_state_without_touching_anything() {
    let t = TestRepo::new();
    t.write("a.txt", "one\n");
    t.write("b.txt", "bee\n");
    t.commit_all("init");
    t.write("a.txt", "staged\n");
    t.git(&["add", "a.txt"]);
    t.write("a.txt", "worktree\n");
    t.write("new/untracked.txt", "u\n");
    t.write(".gitignore", "*.log\n");
    t.write("debug.log", "ignored\n");
    let before = t.state();
    let index_before = index_bytes_and_mtime(&t);

    let taken = checkpoint::create(&t.repo(), &create::Options::default()).unwrap();

    assert_eq!(t.state(), before);
    assert_eq!(index_bytes_and_mtime(&t), index_before);
    let entry = |name: &str| format!("refs/salve/catalog:{}/{name}", taken.commit);
    assert_eq!(t.git(&["rev-parse", &entry("tree")]), taken.tree);
    assert_eq!(
        Some(t.git(&["rev-parse", &entry("index")])),
        taken.index_tree
    );
    let at = |rev: &str, path: &str| t.git(&["show", &format!("{rev}:{path}")]);
    assert_eq!(at(&taken.commit, "a.txt"), "worktree");
    assert_eq!(at(&taken.commit, "new/untracked.txt"), "u");
    assert_eq!(at(&taken.commit, ".gitignore"), "*.log");
    let files = t.git(&["ls-tree", "-r", "--name-only", &taken.commit]);
    assert!(
        !files.contains("debug.log"),
        "ignored file captured: {files}"
    );
    let index_tree = taken.index_tree.clone().unwrap();
    assert_eq!(at(&index_tree, "a.txt"), "staged");
    assert!(!t
        .git(&["ls-tree", "-r", "--name-only", &index_tree])
        .contains("untracked"));
    assert_eq!(taken.head.commit, t.head());
    assert!(taken.skipped.is_empty());
}

#[test]
fn works_without_identity_and_without_commits() {
    let t = TestRepo::without_identity();
    t.write("first.txt", "hello\n");
    t.git(&["add", "first.txt"]);
    t.write("loose.txt", "loose\n");
    let before = t.state();

    let taken = checkpoint::create(&t.repo(), &create::Options::default()).unwrap();

    assert_eq!(t.state(), before);
    assert_eq!(taken.head.commit, None);
    assert_eq!(taken.head.branch.as_deref(), Some("refs/heads/main"));
    let author = t.git(&["log", "-1", "--format=%an <%ae>", &taken.commit]);
    assert_eq!(author, "salve <salve@localhost>");
    let listed = checkpoint::list(
        &t.repo(),
        &list::Options {
            with_file_counts: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].head, None);
    assert_eq!(listed[0].files_changed, Some(2));
}

#[test]
fn works_on_detached_head() {
    let t = TestRepo::new();
    t.write("a.txt", "1\n");
    t.commit_all("one");
    t.write("a.txt", "2\n");
    t.commit_all("two");
    t.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    t.write("a.txt", "dirty\n");
    let before = t.state();
    let taken = checkpoint::create(&t.repo(), &create::Options::default()).unwrap();
    assert_eq!(t.state(), before);
    assert_eq!(taken.head.branch, None);
    assert_eq!(taken.head.commit, t.head());
    let found = checkpoint::find(&t.repo(), &taken.id).unwrap();
    assert_eq!(found.branch, None);
    assert_eq!(found.head, t.head());
}

#[test]
fn skips_large_untracked_files_and_directories_and_names_them() {
    let t = TestRepo::new();
    t.write("tracked.bin", vec![b'x'; 5_000]);
    t.commit_all("init");
    // A tracked file over the limit is still captured: only untracked content is skipped.
    t.write("tracked.bin", vec![b'y'; 6_000]);
    t.write("big.bin", vec![b'z'; 2_000]);
    t.write("small.txt", "small\n");
    for i in 0..12 {
        t.write(format!("gen/deps/pkg{i}.txt"), "dep\n");
    }
    t.write("gen/keep.txt", "keep\n");
    let options = create::Options {
        limits: create::Limits {
            max_file_bytes: 1_000,
            max_dir_files: 10,
            max_dir_bytes: 1_000_000,
        },
        ..Default::default()
    };
    let taken = checkpoint::create(&t.repo(), &options).unwrap();
    let skipped: Vec<(PathBuf, create::SkipReason)> = taken
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.reason.clone()))
        .collect();
    assert_eq!(
        skipped,
        vec![
            (
                PathBuf::from("big.bin"),
                create::SkipReason::TooLarge { bytes: 2_000 }
            ),
            (
                PathBuf::from("gen/deps"),
                create::SkipReason::LargeDirectory {
                    files: 12,
                    bytes: 48
                }
            ),
        ]
    );
    let files = t.git(&["ls-tree", "-r", "--name-only", &taken.commit]);
    let files: Vec<&str> = files.lines().collect();
    assert_eq!(
        files,
        vec!["gen/keep.txt", "small.txt", "tracked.bin"],
        "tracked.bin must be captured although large"
    );
    assert_eq!(
        t.git_bytes(&["cat-file", "blob", &format!("{}:tracked.bin", taken.commit)]),
        vec![b'y'; 6_000]
    );
}

#[test]
fn leaves_nested_repositories_alone() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let nested = t.at(t.root.join("vendor/lib"));
    std::fs::create_dir_all(&nested.root).unwrap();
    nested.git(&["init", "-q"]);
    nested.write("inner.txt", "inner\n");
    let before = t.state();
    let taken = checkpoint::create(&t.repo(), &create::Options::default()).unwrap();
    assert_eq!(t.state(), before);
    assert_eq!(
        taken.skipped,
        vec![create::Skipped {
            path: PathBuf::from("vendor/lib"),
            reason: create::SkipReason::NestedRepository
        }]
    );
    let files = t.git(&["ls-tree", "-r", "--name-only", &taken.commit]);
    assert_eq!(files, "a.txt");
}

#[test]
fn lists_finds_and_drops() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let repo = t.repo();
    t.write("a.txt", "changed\n");
    let first = checkpoint::create(
        &repo,
        &create::Options {
            message: Some("first".into()),
            ..Default::default()
        },
    )
    .unwrap();
    t.write("b.txt", "b\n");
    let second = checkpoint::create(&repo, &create::Options::default()).unwrap();

    let listed = checkpoint::list(
        &repo,
        &list::Options {
            with_file_counts: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut ids: Vec<(String, Option<usize>, String)> = listed
        .iter()
        .map(|c| (c.id.clone(), c.files_changed, c.message.clone()))
        .collect();
    ids.sort();
    let mut expected = vec![
        (first.id.clone(), Some(1), "first".to_owned()),
        (second.id.clone(), Some(2), "salve checkpoint".to_owned()),
    ];
    expected.sort();
    assert_eq!(ids, expected);
    assert_eq!(
        checkpoint::find(&repo, &first.id[..8]).unwrap().commit,
        first.commit
    );
    assert!(matches!(
        checkpoint::find(&repo, "zzz"),
        Err(checkpoint::FindError::NotFound(_))
    ));

    let dropped = checkpoint::drop(&repo, &drop::Selection::Id(first.id.clone())).unwrap();
    assert_eq!(dropped.dropped.len(), 1);
    let left = checkpoint::list(&repo, &list::Options::default()).unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].id, second.id);
    // Dropping by age keeps recent ones.
    let none = checkpoint::drop(
        &repo,
        &drop::Selection::OlderThan(std::time::Duration::from_secs(3600)),
    )
    .unwrap();
    assert!(none.dropped.is_empty());
    assert_eq!(
        checkpoint::list(&repo, &list::Options::default())
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn drops_only_checkpoints_older_than_the_cutoff() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let repo = t.repo();
    let recent = checkpoint::create(&repo, &create::Options::default()).unwrap();
    // An old checkpoint: the same commit message, a committer date two days back.
    let message = t.git(&["log", "-1", "--format=%B", &recent.commit]);
    let tree = t.git(&["rev-parse", &format!("{}^{{tree}}", recent.commit)]);
    let old = String::from_utf8(
        std::process::Command::new("git")
            .args(["commit-tree", &tree, "-m", &message])
            .current_dir(&t.root)
            .env("GIT_COMMITTER_DATE", "@1000000000 +0000")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let old = old.trim();
    t.git(&[
        "update-ref",
        &format!("refs/salve/checkpoints/{}", &old[..12]),
        old,
    ]);

    let dropped = checkpoint::drop(
        &repo,
        &drop::Selection::OlderThan(std::time::Duration::from_secs(86_400)),
    )
    .unwrap();
    let dropped: Vec<&str> = dropped.dropped.iter().map(|c| c.commit.as_str()).collect();
    assert_eq!(dropped, vec![old]);
    let left = checkpoint::list(&repo, &list::Options::default()).unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].commit, recent.commit);
}

#[test]
fn linked_worktree_uses_its_own_index() {
    let t = TestRepo::new();
    t.write("a.txt", "main\n");
    t.commit_all("init");
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
    wt.write("a.txt", "linked staged\n");
    wt.git(&["add", "a.txt"]);
    wt.write("a.txt", "linked worktree\n");
    let main_before = t.state();
    let wt_before = wt.state();

    let taken = checkpoint::create(&wt.repo(), &create::Options::default()).unwrap();

    assert_eq!(t.state(), main_before);
    assert_eq!(wt.state(), wt_before);
    assert_eq!(taken.head.branch.as_deref(), Some("refs/heads/side"));
    let show = |rev: &str| wt.git(&["show", &format!("{rev}:a.txt")]);
    assert_eq!(show(&taken.commit), "linked worktree");
    assert_eq!(show(taken.index_tree.as_deref().unwrap()), "linked staged");
}

#[test]
fn git_errors_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let err = salve_git::Repo::discover(dir.path()).unwrap_err();
    assert!(matches!(err, GitError::NotARepository(_)), "{err}");
}

/// Checkpoints taken within one second are still listed newest first: the second alone would
/// leave their order to their ids.
#[test]
fn checkpoints_of_one_second_list_newest_first() {
    let t = TestRepo::new();
    t.write("a.txt", "0\n");
    t.commit_all("init");
    for n in 0..6 {
        t.write("a.txt", format!("{n}\n"));
        checkpoint::create(
            &t.repo(),
            &create::Options {
                message: Some(format!("n{n}")),
                ..Default::default()
            },
        )
        .unwrap();
    }
    let listed = list::list(&t.repo(), &list::Options::default()).unwrap();
    let messages: Vec<&str> = listed.iter().map(|c| c.message.as_str()).collect();
    assert_eq!(messages, ["n5", "n4", "n3", "n2", "n1", "n0"]);
    let page = list::list(
        &t.repo(),
        &list::Options {
            limit: Some(2),
            offset: 1,
            with_file_counts: true,
        },
    )
    .unwrap();
    let messages: Vec<&str> = page.iter().map(|c| c.message.as_str()).collect();
    assert_eq!(messages, ["n4", "n3"]);
    assert_eq!(page[0].files_changed, Some(1));
}

#[test]
fn not_held_names_the_files_a_snapshot_cannot_bring_back() {
    let t = TestRepo::new();
    t.write("a.txt", "one\n");
    t.write(".gitignore", "*.env\n");
    t.commit_all("init");
    t.write("secret.env", "KEY=1\n");
    t.write("local.env", "KEY=2\n");
    let repo = t.repo();
    let wanted = vec![
        PathBuf::from("a.txt"),
        PathBuf::from("secret.env"),
        PathBuf::from("local.env"),
    ];
    // Only `secret.env` is asked for: the ignored `local.env` is in neither the tree nor
    // salve's private store.
    let options = create::Options {
        force_paths: vec![PathBuf::from("secret.env")],
        ..Default::default()
    };
    let snapshot = create::snapshot(&repo, &options).unwrap();
    assert_eq!(
        create::not_held(&repo, &snapshot, &wanted).unwrap(),
        vec![PathBuf::from("local.env")]
    );
    // Held privately, never in the tree.
    let listed = t.git(&["ls-tree", "-r", "--name-only", snapshot.tree()]);
    assert!(!listed.contains("secret.env"), "{listed}");
}

/// Where the snapshot was built in process, `not_held` answers from what it built, with no git:
/// the same answer git's listing of the tree gives (asked with a path the snapshot was not
/// forced to take, which sends it to git).
#[test]
fn not_held_from_the_snapshot_agrees_with_gits_listing() {
    let t = TestRepo::new();
    t.write("a.txt", "one\n");
    t.write("dir/b.txt", "two\n");
    t.write(".gitignore", "*.env\n");
    t.commit_all("init");
    t.write("a.txt", "changed\n");
    t.write("new.txt", "untracked\n");
    t.write("secret.env", "KEY=1\n");
    let repo = t.repo();
    let forced: Vec<PathBuf> = ["a.txt", "dir/b.txt", "new.txt", "secret.env", "gone.txt"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let options = create::Options {
        force_paths: forced.clone(),
        ..Default::default()
    };
    let snapshot = create::snapshot(&repo, &options).unwrap();
    let ours = create::not_held(&repo, &snapshot, &forced).unwrap();
    assert_eq!(ours, vec![PathBuf::from("gone.txt")]);
    let mut through_git = forced.clone();
    through_git.push(PathBuf::from("never-forced.txt"));
    let gits = create::not_held(&repo, &snapshot, &through_git).unwrap();
    assert_eq!(
        gits,
        vec![PathBuf::from("gone.txt"), PathBuf::from("never-forced.txt")]
    );
}
