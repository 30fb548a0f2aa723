//! Data-driven applier scenarios: every folder in `tests/fixtures/scenarios/` (see the README
//! there) is applied with the built `salve` binary in a fresh git repository, and the resulting
//! work tree is compared byte for byte with the expected one.
//!
//! All scenarios run in one test so a single report lists every failure with its diff, rather than
//! stopping at the first. `SALVE_SCENARIO=substring` runs only the matching folders.
//!
//! The sandbox helpers here (temp repositories, tree snapshots, tree diffs) are shared with the
//! corpus and git comparison tests.

// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

/// One entry of a work tree snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    File(Vec<u8>),
    Symlink(PathBuf),
}

/// A work tree snapshot: relative path (with `/`) to content.
pub(crate) type Tree = BTreeMap<String, Entry>;

/// The workspace root (two levels above this crate).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Reads every file and symlink below `root`, skipping `.git/` at the top when `skip_git` is set.
pub(crate) fn read_tree(root: &Path, skip_git: bool) -> Tree {
    let mut out = Tree::new();
    if root.is_dir() {
        walk(root, root, skip_git, &mut out);
    }
    out
}

fn walk(root: &Path, dir: &Path, skip_git: bool, out: &mut Tree) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read_dir {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if skip_git && rel == ".git" {
            continue;
        }
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.file_type().is_symlink() {
            out.insert(rel, Entry::Symlink(fs::read_link(&path).unwrap()));
        } else if meta.is_dir() {
            walk(root, &path, skip_git, out);
        } else {
            out.insert(rel, Entry::File(fs::read(&path).unwrap()));
        }
    }
}

/// Writes a snapshot below `root`, creating folders and symlinks.
pub(crate) fn write_tree(root: &Path, tree: &Tree) {
    for (rel, entry) in tree {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        match entry {
            Entry::File(data) => fs::write(&path, data).unwrap(),
            Entry::Symlink(target) => std::os::unix::fs::symlink(target, &path).unwrap(),
        }
    }
}

/// Removes everything in `repo` except `.git/`.
pub(crate) fn clear_worktree(repo: &Path) {
    for entry in fs::read_dir(repo).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            fs::remove_dir_all(&path).unwrap();
        } else {
            fs::remove_file(&path).unwrap();
        }
    }
}

/// Environment that keeps the user's and the system's git configuration out of every run.
pub(crate) const GIT_ENV: &[(&str, &str)] = &[
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_AUTHOR_NAME", "salve-tests"),
    ("GIT_AUTHOR_EMAIL", "salve-tests@example.invalid"),
    ("GIT_COMMITTER_NAME", "salve-tests"),
    ("GIT_COMMITTER_EMAIL", "salve-tests@example.invalid"),
    ("GIT_AUTHOR_DATE", "2000-01-01T00:00:00Z"),
    ("GIT_COMMITTER_DATE", "2000-01-01T00:00:00Z"),
    ("NO_COLOR", "1"),
];

/// Runs git in `dir`, panicking with its stderr on failure.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Output {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .envs(GIT_ENV.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `git init` with a local identity and no line-ending conversion, then commit `base`.
pub(crate) fn init_repo(repo: &Path, base: &Tree) {
    fs::create_dir_all(repo).unwrap();
    git(repo, &["-c", "init.defaultBranch=main", "init", "-q"]);
    git(repo, &["config", "user.name", "salve-tests"]);
    git(
        repo,
        &["config", "user.email", "salve-tests@example.invalid"],
    );
    git(repo, &["config", "core.autocrlf", "false"]);
    git(repo, &["config", "commit.gpgsign", "false"]);
    write_tree(repo, base);
    git(repo, &["add", "-A"]);
    git(
        repo,
        &["commit", "-q", "--allow-empty", "--no-verify", "-m", "base"],
    );
}

/// The built `salve` binary, as a command running in `dir` with the test git environment.
pub(crate) fn salve(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("salve").unwrap();
    cmd.current_dir(dir)
        .envs(GIT_ENV.iter().copied())
        .timeout(Duration::from_secs(60));
    cmd
}

/// A readable, line-level description of how `got` differs from `want`.
pub(crate) fn describe_diff(got: &Tree, want: &Tree) -> String {
    let mut out = String::new();
    let paths: std::collections::BTreeSet<_> = got.keys().chain(want.keys()).collect();
    for path in paths {
        match (got.get(path), want.get(path)) {
            (Some(g), Some(w)) if g == w => {}
            (Some(_), None) => writeln!(out, "  unexpected file {path}").unwrap(),
            (None, Some(_)) => writeln!(out, "  missing file {path}").unwrap(),
            (Some(Entry::File(g)), Some(Entry::File(w))) => {
                writeln!(out, "  {path} differs (- expected, + got):").unwrap();
                out.push_str(&line_diff(w, g));
            }
            (g, w) => writeln!(out, "  {path}: expected {w:?}, got {g:?}").unwrap(),
        }
    }
    out
}

/// Splits keeping line endings, so CRLF and a missing final newline show up in the diff.
fn lines_with_endings(data: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(data)
        .split_inclusive('\n')
        .map(str::to_owned)
        .collect()
}

/// A small LCS line diff with escaped lines (`\r`, tabs, non-ASCII visible), at most 40 lines.
fn line_diff(want: &[u8], got: &[u8]) -> String {
    let a = lines_with_endings(want);
    let b = lines_with_endings(got);
    let mut out = String::new();
    if a.len() * b.len() > 4_000_000 {
        let first = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        writeln!(out, "    first difference at line {}", first + 1).unwrap();
        writeln!(out, "    - {:?}", a.get(first)).unwrap();
        writeln!(out, "    + {:?}", b.get(first)).unwrap();
        return out;
    }
    // lcs[i][j] = length of the LCS of a[i..] and b[j..]
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut shown) = (0, 0, 0);
    while (i < a.len() || j < b.len()) && shown < 40 {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            writeln!(out, "    +{:>4} {:?}", j + 1, b[j]).unwrap();
            j += 1;
            shown += 1;
        } else {
            writeln!(out, "    -{:>4} {:?}", i + 1, a[i]).unwrap();
            i += 1;
            shown += 1;
        }
    }
    out
}

/// Every status and issue kind in a `--json` report.
pub(crate) fn report_statuses(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let text = |v: &Value| v.as_str().map(str::to_owned);
    for file in report["files"].as_array().into_iter().flatten() {
        out.extend(text(&file["status"]));
        for hunk in file["hunks"].as_array().into_iter().flatten() {
            out.extend(text(&hunk["status"]));
        }
    }
    for issue in report["issues"].as_array().into_iter().flatten() {
        out.extend(text(&issue["kind"]));
    }
    out
}

/// The rungs of the applied hunks, in report order.
fn report_rungs(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for file in report["files"].as_array().into_iter().flatten() {
        for hunk in file["hunks"].as_array().into_iter().flatten() {
            if hunk["status"] == "applied" {
                if let Some(rung) = hunk["rung"].as_str() {
                    out.push(rung.to_owned());
                }
            }
        }
    }
    out
}

fn scenarios_dir() -> PathBuf {
    workspace_root().join("tests/fixtures/scenarios")
}

fn is_scenario(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    path.is_dir()
        && name.len() > 4
        && name[..3].bytes().all(|b| b.is_ascii_digit())
        && &name[3..4] == "_"
}

/// `path -> target` lines of `symlinks.txt`.
fn read_symlinks(dir: &Path) -> Tree {
    let mut out = Tree::new();
    if let Ok(text) = fs::read_to_string(dir.join("symlinks.txt")) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (path, target) = line
                .split_once(" -> ")
                .expect("symlinks.txt: `path -> target`");
            out.insert(
                path.trim().to_owned(),
                Entry::Symlink(PathBuf::from(target.trim())),
            );
        }
    }
    out
}

/// Runs one scenario; `Err` holds every problem found.
fn run_scenario(dir: &Path) -> Result<(), String> {
    let links = read_symlinks(dir);
    let with_links = |mut tree: Tree| {
        tree.extend(links.clone());
        tree
    };
    let before = with_links(read_tree(&dir.join("before"), false));
    let base = if dir.join("base").is_dir() {
        with_links(read_tree(&dir.join("base"), false))
    } else {
        before.clone()
    };
    let expected_tree = if dir.join("after").is_dir() {
        with_links(read_tree(&dir.join("after"), false))
    } else {
        before.clone()
    };
    let expected: Value = match fs::read_to_string(dir.join("expected.json")) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("bad expected.json: {e}"))?,
        Err(_) => Value::Null,
    };
    let want_exit = expected["exit"]
        .as_i64()
        .unwrap_or(if dir.join("after").is_dir() { 0 } else { 1 });
    let args: Vec<String> = fs::read_to_string(dir.join("args.txt"))
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();

    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("sentinel.txt"), "do not touch\n").unwrap();
    init_repo(&repo, &base);
    clear_worktree(&repo);
    write_tree(&repo, &before);
    let outside0 = read_tree(&outside, false);
    let config0 = fs::read(repo.join(".git/config")).unwrap();
    let hooks0 = read_tree(&repo.join(".git/hooks"), false);

    let reply = fs::read(dir.join("reply.txt")).map_err(|e| format!("reply.txt: {e}"))?;
    let reply = String::from_utf8_lossy(&reply)
        .replace("{OUTSIDE}", &outside.to_string_lossy())
        .into_bytes();
    let reply_path = tmp.path().join("reply.txt");
    fs::write(&reply_path, reply).unwrap();

    let out = salve(&repo)
        .arg("apply")
        .arg("--json")
        .arg(&reply_path)
        .args(&args)
        .output()
        .map_err(|e| format!("could not run salve: {e}"))?;

    let mut problems = Vec::new();
    let code = out.status.code().unwrap_or(-1);
    let got = read_tree(&repo, true);
    // `refusal_ok`: only "no crash, no damage" is certain, so a clean refusal also passes.
    let clean_refusal = expected["refusal_ok"] == true && code == 1 && got == before;
    if i64::from(code) != want_exit && !clean_refusal {
        problems.push(format!("exit status {code}, expected {want_exit}"));
    }
    if got != expected_tree && !clean_refusal {
        problems.push(format!(
            "work tree differs:\n{}",
            describe_diff(&got, &expected_tree)
        ));
    }
    if read_tree(&outside, false) != outside0 {
        problems.push("wrote outside the repository".to_owned());
    }
    if fs::read(repo.join(".git/config")).unwrap() != config0 {
        problems.push("changed .git/config".to_owned());
    }
    if read_tree(&repo.join(".git/hooks"), false) != hooks0 {
        problems.push("changed .git/hooks".to_owned());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str::<Value>(&stdout) {
        Err(e) if code == 0 || code == 1 => {
            problems.push(format!("stdout is not a JSON report ({e})"));
        }
        Err(_) => {}
        Ok(report) => check_report(&expected, &report, &mut problems),
    }
    if problems.is_empty() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut msg = problems.join("\n");
    let tail = |s: &str| {
        s.chars()
            .rev()
            .take(1500)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<String>()
    };
    write!(
        msg,
        "\n  stdout: {}\n  stderr: {}",
        tail(&stdout),
        tail(&stderr)
    )
    .unwrap();
    Err(msg)
}

/// Every file and hunk message in a report.
fn report_messages(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for file in report["files"].as_array().into_iter().flatten() {
        out.extend(file["message"].as_str().map(str::to_owned));
        for hunk in file["hunks"].as_array().into_iter().flatten() {
            out.extend(hunk["message"].as_str().map(str::to_owned));
        }
    }
    out
}

fn check_report(expected: &Value, report: &Value, problems: &mut Vec<String>) {
    let statuses = report_statuses(report);
    if let Some(outcome) = expected["outcome"].as_str() {
        if report["outcome"] != outcome {
            problems.push(format!("outcome {}, expected {outcome}", report["outcome"]));
        }
    }
    if let Some(status) = expected["status"].as_str() {
        if !statuses.iter().any(|s| s == status) {
            problems.push(format!(
                "status {status} not in report statuses {statuses:?}"
            ));
        }
    }
    if let Some(any) = expected["status_any"].as_array() {
        if !any.iter().any(|w| statuses.iter().any(|s| w == s.as_str())) {
            problems.push(format!("none of {any:?} in report statuses {statuses:?}"));
        }
    }
    if let Some(needle) = expected["message_contains"].as_str() {
        let messages = report_messages(report);
        if !messages.iter().any(|m| m.contains(needle)) {
            problems.push(format!(
                "no message contains {needle:?}; messages: {messages:?}"
            ));
        }
    }
    if let Some(rungs) = expected["rungs"].as_array() {
        let want: Vec<_> = rungs.iter().filter_map(Value::as_str).collect();
        let got = report_rungs(report);
        if got != want {
            problems.push(format!("rungs {got:?}, expected {want:?}"));
        }
    }
}

#[test]
fn scenarios() {
    let filter = std::env::var("SALVE_SCENARIO").ok();
    let mut dirs: Vec<PathBuf> = fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| is_scenario(p))
        .collect();
    dirs.sort();
    if filter.is_none() {
        assert!(
            dirs.len() >= 80,
            "expected at least 80 scenarios, found {}",
            dirs.len()
        );
    }
    let mut failures = Vec::new();
    let mut ran = 0;
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        ran += 1;
        if let Err(msg) = run_scenario(dir) {
            failures.push(format!("--- {name}\n{msg}"));
        }
    }
    assert!(ran > 0, "no scenario matched {filter:?}");
    eprintln!(
        "scenarios: {} passed, {} failed",
        ran - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} scenarios failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn line_diff_shows_invisible_differences() {
    let mut want = Tree::new();
    want.insert("a.txt".into(), Entry::File(b"one\ntwo\n".to_vec()));
    let mut got = Tree::new();
    got.insert("a.txt".into(), Entry::File(b"one\r\ntwo\n".to_vec()));
    got.insert("b.txt".into(), Entry::File(b"x".to_vec()));
    let d = describe_diff(&got, &want);
    assert!(d.contains("\\r\\n"), "{d}");
    assert!(d.contains("unexpected file b.txt"), "{d}");
    assert!(describe_diff(&want, &want).is_empty());
}
