//! Commit only the fix: HEAD plus exactly the named files; the user's other work stays put.

use std::path::PathBuf;

use salve_git::commit::{self, files, FixMessage, Verification};

use crate::support::TestRepo;

fn options(paths: &[&str], message: &str) -> files::Options {
    files::Options {
        paths: paths.iter().map(PathBuf::from).collect(),
        message: message.to_owned(),
        ..files::Options::default()
    }
}

/// A repository with the user's own staged and unstaged work next to a fix.
fn repo_with_mixed_work() -> TestRepo {
    let t = TestRepo::new();
    t.write("src/fixme.rs", "fn broken() {}\n");
    t.write("src/staged.rs", "staged v1\n");
    t.write("src/unstaged.rs", "unstaged v1\n");
    t.write("src/both.rs", "both v1\n");
    t.write("doomed.rs", "to be deleted by the fix\n");
    t.commit_all("init");
    // The user's own work.
    t.write("src/staged.rs", "staged v2\n");
    t.git(&["add", "src/staged.rs"]);
    t.write("src/unstaged.rs", "unstaged v2\n");
    t.write("src/both.rs", "both v2 staged\n");
    t.git(&["add", "src/both.rs"]);
    t.write("src/both.rs", "both v3 unstaged\n");
    t.write("user-untracked.txt", "mine\n");
    t
}

#[test]
fn commits_only_the_fix_and_leaves_other_work_staged_or_unstaged() {
    let t = repo_with_mixed_work();
    let cached_before = t.git(&["diff", "--cached"]);
    let unstaged_before = t.git(&["diff"]);
    let old_head = t.head().unwrap();
    // The fix: an edit, a new file, a deletion.
    t.write("src/fixme.rs", "fn fixed() {}\n");
    t.write("src/added.rs", "new by the fix\n");
    t.remove("doomed.rs");
    let files_before = t.state().files;

    let message = FixMessage {
        scopes: commit::scopes_for(&["src/fixme.rs"]),
        summary: "repair fixme".into(),
        failed_tasks: vec!["cargo test".into()],
        verification: Some(Verification::Passed),
        ..FixMessage::default()
    }
    .render();
    let outcome = commit::files(
        &t.repo(),
        &options(&["src/fixme.rs", "src/added.rs", "doomed.rs"], &message),
    )
    .unwrap();

    assert_eq!(t.head().as_deref(), Some(outcome.commit.as_str()));
    assert_eq!(t.git(&["rev-parse", "HEAD^"]), old_head);
    assert_eq!(outcome.parent.as_deref(), Some(old_head.as_str()));
    assert_eq!(outcome.branch.as_deref(), Some("refs/heads/main"));
    assert_eq!(
        t.git(&["diff", "--name-status", "HEAD^", "HEAD"]),
        "D\tdoomed.rs\nA\tsrc/added.rs\nM\tsrc/fixme.rs"
    );
    assert_eq!(t.git(&["show", "HEAD:src/fixme.rs"]), "fn fixed() {}");
    assert_eq!(
        t.git(&["log", "-1", "--format=%B"]),
        "fix(fixme): repair fixme\n\nFailed tasks: cargo test\nLocal verification: passed"
    );
    assert_eq!(
        t.git(&["log", "-1", "--format=%an <%ae>"]),
        "Test User <test@example.com>"
    );
    // The user's work: staged stays staged, unstaged stays unstaged, files untouched.
    assert_eq!(t.git(&["diff", "--cached"]), cached_before);
    assert_eq!(t.git(&["diff"]), unstaged_before);
    assert_eq!(t.state().files, files_before);
    assert_eq!(
        t.git(&[
            "status",
            "--porcelain",
            "--",
            "src/fixme.rs",
            "src/added.rs",
            "doomed.rs"
        ]),
        ""
    );
    // HEAD's reflog reads like git's own.
    assert_eq!(
        t.git(&["reflog", "-1", "--format=%gs"]),
        "commit: fix(fixme): repair fixme"
    );
}

#[test]
fn a_fix_file_with_staged_user_edits_commits_the_work_tree_version() {
    let t = repo_with_mixed_work();
    commit::files(&t.repo(), &options(&["src/both.rs"], "fix: both")).unwrap();
    assert_eq!(t.git(&["show", "HEAD:src/both.rs"]), "both v3 unstaged");
    assert_eq!(t.git(&["diff", "--cached", "--name-only"]), "src/staged.rs");
    assert_eq!(t.git(&["diff", "--name-only"]), "src/unstaged.rs");
}

#[test]
fn exact_contents_commit_given_lines_and_set_the_users_entry() {
    let t = repo_with_mixed_work();
    let cached_other = t.git(&["diff", "--cached", "--", "src/staged.rs"]);
    // `src/both.rs` holds a staged and an unstaged line of the user's; the commit takes a line
    // of its own over HEAD's version, and the user's entry takes it over theirs.
    let exact = files::Exact {
        path: PathBuf::from("src/both.rs"),
        commit: Some(b"both v1\nfixed\n".to_vec()),
        index: Some(b"both v2 staged\nfixed\n".to_vec()),
        mode: 0o100644,
    };
    let made = commit::files(
        &t.repo(),
        &files::Options {
            exact: vec![exact],
            message: "fix: both".to_owned(),
            ..files::Options::default()
        },
    )
    .unwrap();
    assert_eq!(made.changed, vec![PathBuf::from("src/both.rs")]);
    assert_eq!(t.git(&["show", "HEAD:src/both.rs"]), "both v1\nfixed");
    assert_eq!(t.git(&["show", ":src/both.rs"]), "both v2 staged\nfixed");
    // The work tree is not touched, and the other staged file stays staged.
    assert_eq!(t.read("src/both.rs"), b"both v3 unstaged\n");
    assert_eq!(
        t.git(&["diff", "--cached", "--", "src/staged.rs"]),
        cached_other
    );
    assert_eq!(
        t.git(&["diff", "--name-only"]),
        "src/both.rs\nsrc/unstaged.rs"
    );
    // A deletion given exactly drops the file from the commit and the entry from the index.
    let gone = files::Exact {
        path: PathBuf::from("doomed.rs"),
        commit: None,
        index: None,
        mode: 0o100644,
    };
    commit::files(
        &t.repo(),
        &files::Options {
            exact: vec![gone],
            message: "fix: doomed".to_owned(),
            ..files::Options::default()
        },
    )
    .unwrap();
    assert_eq!(t.git(&["ls-tree", "--name-only", "HEAD", "doomed.rs"]), "");
    assert_eq!(t.git(&["ls-files", "doomed.rs"]), "");
}

#[test]
fn nothing_to_commit_and_unknown_paths_are_refused() {
    let t = repo_with_mixed_work();
    let head = t.head();
    let err = commit::files(&t.repo(), &options(&["src/fixme.rs"], "fix: x")).unwrap_err();
    assert!(matches!(err, files::Error::NothingToCommit), "{err}");
    let err = commit::files(&t.repo(), &options(&["nope.rs"], "fix: x")).unwrap_err();
    assert!(matches!(err, files::Error::NoSuchPath(_)), "{err}");
    let err = commit::files(&t.repo(), &options(&["../outside"], "fix: x")).unwrap_err();
    assert!(matches!(err, files::Error::OutsideWorkTree(_)), "{err}");
    assert_eq!(t.head(), head);
}

fn hook(t: &TestRepo, name: &str, body: &str) {
    t.write(format!(".git/hooks/{name}"), format!("#!/bin/sh\n{body}\n"));
    t.chmod(format!(".git/hooks/{name}"), 0o755);
}

#[test]
fn pre_commit_hook_sees_only_the_fix_and_can_stop_it() {
    let t = repo_with_mixed_work();
    t.write("src/fixme.rs", "fn fixed() {}\n");
    let seen = t.root.join("../seen.txt");
    hook(
        &t,
        "pre-commit",
        &format!(
            "git diff --cached --name-only HEAD > '{}'\nexit 1",
            seen.display()
        ),
    );
    let head = t.head();
    let cached = t.git(&["diff", "--cached"]);
    let err = commit::files(&t.repo(), &options(&["src/fixme.rs"], "fix: x")).unwrap_err();
    match &err {
        files::Error::Hook { name, code, .. } => {
            assert_eq!(name, "pre-commit");
            assert_eq!(*code, 1);
        }
        other => panic!("expected a hook failure, got {other}"),
    }
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "src/fixme.rs\n");
    assert_eq!(t.head(), head);
    assert_eq!(t.git(&["diff", "--cached"]), cached);

    let mut skip = options(&["src/fixme.rs"], "fix: x");
    skip.no_verify = true;
    commit::files(&t.repo(), &skip).unwrap();
    assert_eq!(t.git(&["show", "HEAD:src/fixme.rs"]), "fn fixed() {}");
}

#[test]
fn commit_msg_hook_can_edit_the_message() {
    let t = repo_with_mixed_work();
    t.write("src/fixme.rs", "fn fixed() {}\n");
    hook(&t, "commit-msg", "echo 'Reviewed-by: hook' >> \"$1\"");
    let outcome = commit::files(&t.repo(), &options(&["src/fixme.rs"], "fix: x\n")).unwrap();
    assert_eq!(outcome.message, "fix: x\nReviewed-by: hook");
    assert_eq!(
        t.git(&["log", "-1", "--format=%B"]),
        "fix: x\nReviewed-by: hook"
    );
}

#[test]
fn head_moving_meanwhile_aborts_the_commit() {
    let t = repo_with_mixed_work();
    t.write("src/fixme.rs", "fn fixed() {}\n");
    // A hook that commits behind salve's back: the compare-and-swap must notice.
    hook(
        &t,
        "pre-commit",
        "c=$(git commit-tree HEAD^{tree} -p HEAD -m sneaky) && git update-ref HEAD $c",
    );
    let err = commit::files(&t.repo(), &options(&["src/fixme.rs"], "fix: x")).unwrap_err();
    assert!(matches!(err, files::Error::HeadMoved { .. }), "{err}");
    assert_eq!(t.git(&["log", "-1", "--format=%s"]), "sneaky");
}

#[test]
fn first_commit_on_an_unborn_branch() {
    let t = TestRepo::new();
    t.write("a.txt", "a\n");
    t.write("b.txt", "b\n");
    t.git(&["add", "b.txt"]);
    let outcome = commit::files(&t.repo(), &options(&["a.txt"], "fix: first")).unwrap();
    assert_eq!(outcome.parent, None);
    assert_eq!(t.git(&["ls-tree", "--name-only", "HEAD"]), "a.txt");
    assert_eq!(t.git(&["diff", "--cached", "--name-only"]), "b.txt");
    assert_eq!(t.git(&["status", "--porcelain", "--", "a.txt"]), "");
}

#[test]
fn detached_head_advances_without_a_branch() {
    let t = repo_with_mixed_work();
    t.git(&["checkout", "-q", "--detach"]);
    let main = t.git(&["rev-parse", "main"]);
    t.write("src/fixme.rs", "fn fixed() {}\n");
    let outcome = commit::files(&t.repo(), &options(&["src/fixme.rs"], "fix: x")).unwrap();
    assert_eq!(outcome.branch, None);
    assert_eq!(t.head().as_deref(), Some(outcome.commit.as_str()));
    assert_eq!(t.git(&["rev-parse", "main"]), main);
}

#[test]
fn missing_identity_is_a_clear_error() {
    let t = TestRepo::without_identity();
    t.write("a.txt", "a\n");
    let err = commit::files(&t.repo(), &options(&["a.txt"], "fix: x")).unwrap_err();
    assert!(matches!(err, files::Error::NoIdentity), "{err}");
    assert_eq!(t.head(), None);
}

#[test]
fn index_lock_is_waited_for_then_named_and_kept() {
    let t = repo_with_mixed_work();
    t.write("src/fixme.rs", "fn fixed() {}\n");
    let head = t.head();
    let lock = t.root.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let mut opts = options(&["src/fixme.rs"], "fix: x");
    opts.lock_wait = std::time::Duration::from_millis(200);
    let err = commit::files(&t.repo(), &opts).unwrap_err();
    assert!(err.to_string().contains(".git/index.lock"), "{err}");
    assert!(lock.exists());
    assert_eq!(t.head(), head);
    // Released within the wait: the commit goes through.
    let releaser = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(150));
            std::fs::remove_file(lock).unwrap();
        })
    };
    opts.lock_wait = std::time::Duration::from_secs(5);
    commit::files(&t.repo(), &opts).unwrap();
    releaser.join().unwrap();
    assert_eq!(t.git(&["show", "HEAD:src/fixme.rs"]), "fn fixed() {}");
}

#[test]
fn names_with_glob_characters_are_literal() {
    let t = TestRepo::new();
    t.write("a*.txt", "star\n");
    t.write("ab.txt", "ab\n");
    t.commit_all("init");
    t.write("a*.txt", "star fixed\n");
    t.write("ab.txt", "ab changed by the user\n");
    commit::files(&t.repo(), &options(&["a*.txt"], "fix: star")).unwrap();
    assert_eq!(t.git(&["diff", "--name-only", "HEAD^", "HEAD"]), "a*.txt");
    assert_eq!(t.git(&["diff", "--name-only"]), "ab.txt");
}
