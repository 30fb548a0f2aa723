//! Checkpoints live in one catalog ref: out of `git log --all` and `git branch -a`, kept by
//! `git gc --prune=now`, safe with concurrent writers, and old-style refs move in.

use salve_git::checkpoint::{self, create, list};
use salve_git::restore;

use crate::support::TestRepo;

fn log_lines(t: &TestRepo) -> usize {
    t.git(&["log", "--all", "--oneline"]).lines().count()
}

#[test]
fn a_hundred_checkpoints_add_at_most_one_line_to_the_history_views() {
    let t = TestRepo::new();
    t.write("a.txt", "0\n");
    t.commit_all("init");
    t.git(&["branch", "side"]);
    let (log_before, branches_before) = (log_lines(&t), t.git(&["branch", "-a"]));
    let repo = t.repo();
    for n in 1..=100 {
        t.write("a.txt", format!("{n}\n"));
        let options = create::Options {
            operation: Some("apply".into()),
            ..Default::default()
        };
        checkpoint::create(&repo, &options).unwrap();
    }
    assert!(log_lines(&t) <= log_before + 1, "{}", log_lines(&t));
    assert_eq!(t.git(&["branch", "-a"]), branches_before);
    let refs = t.git(&["for-each-ref", "--format=%(refname)", "refs/salve/"]);
    assert_eq!(refs, checkpoint::CATALOG_REF);
    assert_eq!(
        checkpoint::list(&repo, &list::Options::default())
            .unwrap()
            .len(),
        100
    );
}

#[test]
fn a_checkpoint_restores_after_gc_prune_now() {
    let t = TestRepo::new();
    t.write("a.txt", "committed\n");
    t.write("b.txt", "bee\n");
    t.commit_all("init");
    t.write("a.txt", "staged\n");
    t.git(&["add", "a.txt"]);
    t.write("a.txt", "worktree\n");
    t.write("new/untracked.txt", "only here\n");
    let saved = t.state();
    let repo = t.repo();
    let taken = checkpoint::create(&repo, &create::Options::default()).unwrap();

    // Everything changes, the branch is reset away, and git collects all it can.
    t.write("a.txt", "later\n");
    t.remove("new");
    t.remove("b.txt");
    t.git(&["add", "-A"]);
    t.git(&["commit", "-q", "-m", "later"]);
    t.git(&["reflog", "expire", "--expire=now", "--all"]);
    t.git(&["gc", "-q", "--prune=now"]);
    let commit_kept = t
        .git_output(&["cat-file", "-e", &taken.commit])
        .status
        .success();
    assert!(
        !commit_kept,
        "the checkpoint's own commit is not what keeps it"
    );

    restore::restore(&repo, &taken.id, &restore::Options::default()).unwrap();
    let now = t.state();
    assert_eq!(now.files, saved.files);
    assert_eq!(now.index, saved.index);
    let listed = checkpoint::find(&repo, &taken.id).unwrap();
    assert_eq!(listed.tree, taken.tree);
}

#[test]
fn concurrent_writers_keep_every_checkpoint() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let repo = t.repo();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let repo = repo.clone();
            std::thread::spawn(move || {
                (0..8)
                    .map(|n| {
                        let options = create::Options {
                            message: Some(format!("writer {w} number {n}")),
                            ..Default::default()
                        };
                        checkpoint::create(&repo, &options).unwrap().commit
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut taken: Vec<String> = writers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    taken.sort();
    let mut listed: Vec<String> = checkpoint::list(&repo, &list::Options::default())
        .unwrap()
        .into_iter()
        .map(|c| c.commit)
        .collect();
    listed.sort();
    assert_eq!(listed, taken);
    // Their packs were written and merged by four writers at once: git finds every object.
    t.git(&["fsck", "--strict"]);
    for commit in &taken {
        t.git(&["ls-tree", "-r", commit]);
    }
}

/// A checkpoint as salve before the catalog made it: a commit with HEAD and an "index commit"
/// as parents, version 1 trailers, and a ref of its own. Returns its commit.
fn old_style_checkpoint(t: &TestRepo) -> String {
    let head = t.head().unwrap();
    let index_tree = t.git(&["write-tree"]);
    let commit_tree = |tree: &str, parents: &[&str], message: &str| {
        let mut args = vec!["commit-tree", tree];
        for parent in parents {
            args.extend(["-p", parent]);
        }
        args.extend(["-m", message]);
        t.git(&args)
    };
    let index_commit = commit_tree(&index_tree, &[&head], "salve checkpoint: staged state");
    let scratch = t.root.join(".git/scratch-index");
    std::fs::copy(t.root.join(".git/index"), &scratch).unwrap();
    let add = std::process::Command::new("git")
        .args(["add", "-A"])
        .current_dir(&t.root)
        .env("GIT_INDEX_FILE", &scratch)
        .status()
        .unwrap();
    assert!(add.success());
    let tree = String::from_utf8(
        std::process::Command::new("git")
            .arg("write-tree")
            .current_dir(&t.root)
            .env("GIT_INDEX_FILE", &scratch)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::fs::remove_file(&scratch).unwrap();
    let message = format!(
        "before salve apply\n\nSalve-Checkpoint: 1\nSalve-Head: {head}\nSalve-Branch: \
         refs/heads/main\nSalve-Index: {index_commit}\nSalve-Worktree: {}\nSalve-Skipped: 0",
        t.root.display()
    );
    let commit = commit_tree(tree.trim(), &[&head, &index_commit], &message);
    t.git(&[
        "update-ref",
        &format!("refs/salve/checkpoints/{}", &commit[..12]),
        &commit,
    ]);
    commit
}

#[test]
fn old_style_refs_are_read_then_moved_into_the_catalog() {
    let t = TestRepo::new();
    t.write("a.txt", "committed\n");
    t.commit_all("init");
    t.write("a.txt", "staged\n");
    t.git(&["add", "a.txt"]);
    t.write("a.txt", "old worktree\n");
    t.write("untracked.txt", "u\n");
    let saved = t.state();
    let old = old_style_checkpoint(&t);
    let repo = t.repo();

    // Read as it is, before any write.
    let found = checkpoint::find(&repo, &old[..12]).unwrap();
    assert_eq!((found.commit.as_str(), found.has_ref), (old.as_str(), true));
    assert_eq!(found.message, "before salve apply");

    // The next write moves it into the catalog and deletes its ref.
    t.write("a.txt", "newer\n");
    let newer = checkpoint::create(&repo, &create::Options::default()).unwrap();
    assert_eq!(t.git(&["for-each-ref", "refs/salve/checkpoints/"]), "");
    let ids: Vec<String> = checkpoint::list(&repo, &list::Options::default())
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert!(ids.contains(&old[..12].to_owned()) && ids.contains(&newer.id));

    // Its objects are the catalog's now: it still restores, staged state included, after gc.
    t.git(&["reflog", "expire", "--expire=now", "--all"]);
    t.git(&["gc", "-q", "--prune=now"]);
    restore::restore(&repo, &old[..12], &restore::Options::default()).unwrap();
    let now = t.state();
    assert_eq!(now.files, saved.files);
    assert_eq!(now.index, saved.index);
}

#[test]
fn dropping_the_last_checkpoint_removes_the_catalog_ref() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.commit_all("init");
    let repo = t.repo();
    let taken = checkpoint::create(&repo, &create::Options::default()).unwrap();
    checkpoint::drop(&repo, &checkpoint::drop::Selection::Id(taken.id.clone())).unwrap();
    assert_eq!(t.git(&["for-each-ref", "refs/salve/"]), "");
    assert_eq!(log_lines(&t), 1);
}
