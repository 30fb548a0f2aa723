#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use super::*;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["config", "user.name", "t"]);
    git(dir.path(), &["config", "user.email", "t@example.invalid"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

#[test]
fn budgets_persist_across_opens_in_the_git_record() {
    let tmp = repo();
    let branch = branch_of(tmp.path()).unwrap();
    assert_eq!(branch, "main");
    {
        let mut b = Budgets::open(tmp.path(), Limits::default()).unwrap();
        let s = b.spend(&branch, "sig", BudgetKind::Attempts).unwrap();
        assert_eq!((s.spent, s.limit, s.remaining), (1, 3, 2));
        b.spend(&branch, "sig", BudgetKind::Attempts).unwrap();
    }
    assert!(tmp.path().join(".git/salve/salve.db").is_file());
    // A second run (a new handle) sees what the first spent.
    let mut b = Budgets::open(tmp.path(), Limits::default()).unwrap();
    assert_eq!(
        b.remaining(&branch, "sig", BudgetKind::Attempts).unwrap(),
        1
    );
    b.spend(&branch, "sig", BudgetKind::Attempts).unwrap();
    let err = b.gate(&branch, "sig", BudgetKind::Attempts).unwrap_err();
    assert_eq!(err.code(), "budget_exhausted");
    assert_eq!(err.kind(), Kind::Refused);
    let err = b.spend(&branch, "sig", BudgetKind::Attempts).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Exhausted {
                spent: 3,
                limit: 3,
                ..
            }
        ),
        "{err}"
    );
    // Environment re-runs and other failures are counted apart.
    b.gate(&branch, "sig", BudgetKind::EnvironmentReruns)
        .unwrap();
    b.gate(&branch, "other", BudgetKind::Attempts).unwrap();
}

#[test]
fn status_and_reset() {
    let tmp = repo();
    let mut b = Budgets::open(tmp.path(), Limits::default()).unwrap();
    for _ in 0..2 {
        b.spend("main", "sig", BudgetKind::EnvironmentReruns)
            .unwrap();
    }
    b.spend("feature", "sig", BudgetKind::Attempts).unwrap();
    let status = b.status(None).unwrap();
    assert_eq!(status.len(), 2);
    let env = status.iter().find(|c| c.branch == "main").unwrap();
    assert_eq!(
        (env.kind.as_str(), env.spent, env.limit),
        ("environment_reruns", 2, 2)
    );
    assert!(env.exhausted);
    assert_eq!(env.remaining, 0);
    assert_eq!(b.status(Some("feature")).unwrap().len(), 1);
    let json = serde_json::to_value(&status).unwrap();
    assert_eq!(json[0]["kind"], "attempts");

    assert_eq!(b.reset(Some("main"), None).unwrap(), 1);
    b.gate("main", "sig", BudgetKind::EnvironmentReruns)
        .unwrap();
    assert_eq!(b.reset(None, None).unwrap(), 1);
    assert!(b.status(None).unwrap().is_empty());
}

#[test]
fn two_handles_racing_never_overspend() {
    let tmp = repo();
    let limits = Limits {
        attempts: 40,
        environment_reruns: 2,
    };
    let path = tmp.path().to_path_buf();
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                // Each thread has its own connection, as two processes would.
                let mut b = Budgets::open(&path, limits).unwrap();
                (0..30)
                    .filter(|_| b.spend("main", "sig", BudgetKind::Attempts).is_ok())
                    .count()
            })
        })
        .collect();
    let granted: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert_eq!(granted, 40);
    let b = Budgets::open(&path, limits).unwrap();
    assert_eq!(b.status(None).unwrap()[0].spent, 40);
}

#[test]
fn a_detached_head_uses_the_ci_branch() {
    let env = |v: &str| (v == "GITHUB_REF_NAME").then(|| "feature/x".to_owned());
    assert_eq!(branch_name(None, env), "feature/x");
    assert_eq!(branch_name(Some("refs/heads/main"), env), "main");
    assert_eq!(branch_name(None, |_| None), "HEAD");

    let tmp = repo();
    git(tmp.path(), &["checkout", "-q", "--detach"]);
    let head = salve_git::Repo::discover(tmp.path())
        .unwrap()
        .head()
        .unwrap();
    assert_eq!(head.branch, None);
}
