//! The record through the real binary: every `salve apply` is recorded (refused ones too, not
//! with `--no-record`), `salve log` / `show` / `export` / `import` / `gc`, two processes at
//! once, a process killed mid-run, a record of an older schema, deduplicated artifacts.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Run, Tree};

const SRC: &str =
    "def total(items):\n    return sum(items)\n\n\ndef count(items):\n    return len(items)\n";

const FIX: &str = "Here you go:\n\n```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def total(items):\n-    return sum(items)\n+    # ignore missing values\n+    return sum(i for i in items if i is not None)\n```\n";

const MISS: &str = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def average(items):\n-    return 0\n+    return 1\n```\n";

fn run(tree: &Tree, args: &[&str]) -> Run {
    Run::from(tree.salve().args(args).output().unwrap())
}

fn repo() -> Tree {
    let tree = Tree::git();
    tree.write("calc.py", SRC).commit("init");
    tree
}

fn salve_dir(tree: &Tree) -> PathBuf {
    tree.path(".git/salve")
}

/// The runs `salve log --json` lists, newest first.
fn log_json(tree: &Tree, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["log", "--json", "--limit", "0"];
    args.extend_from_slice(extra);
    let out = run(tree, &args);
    out.code(0);
    out.json().as_array().unwrap().clone()
}

fn objects(tree: &Tree) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(fans) = std::fs::read_dir(salve_dir(tree).join("objects")) else {
        return out;
    };
    for fan in fans {
        for f in std::fs::read_dir(fan.unwrap().path()).unwrap() {
            out.push(f.unwrap().path());
        }
    }
    out.sort();
    out
}

#[test]
fn an_apply_is_recorded_with_its_reply_report_and_diff() {
    let tree = repo();
    let applied = tree.apply(FIX, &["--json"]);
    applied.code(0);
    let runs = log_json(&tree, &[]);
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(r["kind"], "apply");
    assert_eq!(r["status"], "applied");
    assert_eq!(
        (r["files"].as_u64(), r["added"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(r["removed"], 1);
    assert_eq!(r["paths"], serde_json::json!(["calc.py"]));
    assert_eq!(r["command"][0], "salve");
    assert_eq!(r["command"][1], "apply");
    let head = tree.git_cmd(&["rev-parse", "HEAD"]);
    assert_eq!(r["baseline"], head.trim());
    assert!(r["checkpoint"].is_string(), "{r}");

    let id = r["short_id"].as_str().unwrap();
    let reply = run(&tree, &["show", id, "--artifact", "raw_reply"]);
    reply.code(0);
    assert_eq!(reply.stdout, FIX);
    // The report is the one `apply --json` printed, which adds the checkpoint beside it.
    let report = run(&tree, &["show", id, "--artifact", "apply_report"]);
    let mut printed = applied.json();
    assert_eq!(
        printed.as_object_mut().unwrap().remove("checkpoint"),
        r["checkpoint"].as_str().map(|c| serde_json::json!(c[..12]))
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&report.stdout).unwrap(),
        printed
    );
    // The recorded diff is what landed: git sees the same change.
    let diff = run(&tree, &["show", id, "--diff"]);
    diff.code(0);
    let git: String = tree
        .git_cmd(&["diff"])
        .lines()
        .filter(|l| !l.starts_with("index "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(diff.stdout, git);

    let show = run(&tree, &["show", id]);
    show.code(0);
    assert!(
        show.stdout.contains("status:     applied"),
        "{}",
        show.stdout
    );
    assert!(show.stdout.contains("patch set 1: applied (unified)"));
    assert!(show.stdout.contains("  modify calc.py +2 -1"));
    assert!(show.stdout.contains("final_diff"));

    let text = run(&tree, &["log"]);
    let line = text.stdout.lines().next().unwrap();
    assert!(line.starts_with(id), "{line}");
    for part in ["apply", "applied", "1 file", "+2 -1", "calc.py"] {
        assert!(line.contains(part), "{part} missing from {line}");
    }
}

/// An edit of an in-tree symlink writes its target: the report, its counts and the record name
/// the file that changed, and the path the reply wrote is kept beside it.
#[cfg(unix)]
#[test]
fn an_edit_through_an_in_tree_symlink_is_recorded_under_the_file_written() {
    let tree = repo();
    std::os::unix::fs::symlink("calc.py", tree.path("link.py")).unwrap();
    tree.commit("link");
    let applied = tree.apply(&FIX.replace("calc.py", "link.py"), &["--json"]);
    applied.code(0);
    let report = applied.json();
    let file = &report["files"][0];
    assert_eq!(file["path"], "calc.py", "{report}");
    assert_eq!(file["requested_path"], "link.py", "{report}");
    assert_eq!(
        (file["added"].as_u64(), file["removed"].as_u64()),
        (Some(2), Some(1))
    );
    assert!(tree.read("calc.py").contains("is not None"));
    let runs = log_json(&tree, &[]);
    assert_eq!(runs[0]["paths"], serde_json::json!(["calc.py"]));
    assert_eq!(
        (runs[0]["added"].as_u64(), runs[0]["removed"].as_u64()),
        (Some(2), Some(1))
    );
    let again = tree.apply(&FIX.replace("calc.py", "link.py"), &[]);
    again.code(0);
    assert!(
        again.stdout.contains("calc.py (the reply said link.py)"),
        "{}",
        again.stdout
    );
}

#[test]
fn refused_and_failed_applies_are_recorded_and_no_record_opts_out() {
    let tree = repo();
    tree.apply(MISS, &[]).code(1);
    tree.apply(FIX, &["--no-record"]).code(0);
    let bad_base = tree.apply(FIX, &["--base", "no-such-rev"]);
    bad_base.code(2);
    let runs = log_json(&tree, &[]);
    let statuses: Vec<&str> = runs.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["error", "refused"]);
    assert!(runs[0]["message"].as_str().unwrap().contains("no-such-rev"));

    let refused = runs[1]["id"].as_str().unwrap();
    let rec = run(&tree, &["show", refused, "--json"]);
    rec.code(0);
    let rec = rec.json();
    assert_eq!(rec["patch_sets"][0]["status"], "rejected");
    assert_eq!(rec["patch_sets"][0]["files"][0]["path"], "calc.py");
    assert!(rec["run"]["message"]
        .as_str()
        .unwrap()
        .starts_with("calc.py: not_found"));
    let names: Vec<&str> = rec["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["apply_report", "raw_reply"]);
    let report = run(&tree, &["show", refused, "--artifact", "apply_report"]);
    assert!(report.stdout.contains("\"outcome\": \"refused\""));

    let filtered = log_json(&tree, &["--status", "refused"]);
    assert_eq!(filtered.len(), 1);
    assert_eq!(filtered[0]["id"], refused);
    assert!(log_json(&tree, &["--since", "2000-01-01"]).len() == 2);
    assert!(log_json(&tree, &["--kind", "fix"]).is_empty());
}

#[test]
fn bad_arguments_are_usage_errors() {
    let tree = repo();
    tree.apply(FIX, &["--check"]).code(0);
    let out = run(&tree, &["log", "--since", "last tuesday"]);
    out.code(2);
    assert!(out.stderr.contains("neither a duration"), "{}", out.stderr);
    let out = run(&tree, &["show", "zz"]);
    out.code(2);
    assert!(out.stderr.contains("not a run id"), "{}", out.stderr);
    let out = run(&tree, &["show", "fffffff"]);
    out.code(2);
    assert!(out.stderr.contains("no run matches"), "{}", out.stderr);
    assert!(out.stderr.contains("Hint: `salve log`"), "{}", out.stderr);
    let id = log_json(&tree, &[])[0]["short_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = run(&tree, &["show", &id, "--artifact", "final_dif"]);
    out.code(2);
    assert!(out.stderr.contains("no artifact named"), "{}", out.stderr);
    // A status nothing ends with is a mistake, not an empty history.
    let out = run(&tree, &["log", "--status", "bogus"]);
    out.code(2);
    assert!(out.stderr.contains("not a run status"), "{}", out.stderr);
    // The --check run wrote nothing, and says so.
    let out = run(&tree, &["show", &id, "--diff"]);
    out.code(0);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("was a check (--check): nothing was written"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_same_reply_recorded_twice_is_stored_once() {
    let tree = repo();
    tree.apply(FIX, &["--check"]).code(0);
    let runs = log_json(&tree, &[]);
    let store = salve_store::Store::open(&tree.root).unwrap();
    let first = store.record(runs[0]["id"].as_str().unwrap()).unwrap();
    // raw reply, report and diff: small, so kept in the record's database, not as files
    assert_eq!(first.artifacts.len(), 3, "{:?}", first.artifacts);
    assert_eq!(objects(&tree), Vec::<PathBuf>::new());
    tree.apply(FIX, &["--check"]).code(0);
    assert_eq!(objects(&tree), Vec::<PathBuf>::new());
    let runs = log_json(&tree, &[]);
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r["status"] == "checked"));
    let second = store.record(runs[0]["id"].as_str().unwrap()).unwrap();
    let shas = |r: &salve_store::RunRecord| {
        let mut v: Vec<String> = r.artifacts.iter().map(|a| a.sha256.clone()).collect();
        v.sort();
        v
    };
    assert_eq!(shas(&first), shas(&second));
    for a in &second.artifacts {
        assert_eq!(store.content(&a.sha256).unwrap().len() as u64, a.size);
    }
}

#[test]
fn two_processes_recording_at_once_both_land() {
    let tree = repo();
    let reply = tree.outside().join("check.md");
    std::fs::write(&reply, FIX).unwrap();
    const EACH: usize = 8;
    let bin = assert_cmd::cargo::cargo_bin("salve");
    let script = format!(
        "for i in $(seq {EACH}); do '{}' apply --check -q '{}' || exit 1; done",
        bin.display(),
        reply.display()
    );
    let spawn = || {
        Command::new("sh")
            .args(["-c", &script])
            .current_dir(&tree.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // No "not recorded" warnings: a busy database waits, it does not fail.
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let runs = log_json(&tree, &[]);
    assert_eq!(runs.len(), 2 * EACH);
    assert!(runs.iter().all(|r| r["status"] == "checked"));
    let store = salve_store::Store::open(&tree.root).unwrap();
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}

/// A `git` that hangs when salve's apply lists the untracked files for its checkpoint, which
/// happens after the run is recorded as started and before anything is written. salve lists
/// them in process where it can; the test's unknown `GIT_*` variable makes it ask git.
fn hanging_git(dir: &Path) -> PathBuf {
    let real = Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8(real.stdout).unwrap().trim().to_owned();
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let shim = bin.join("git");
    std::fs::write(
        &shim,
        format!("#!/bin/sh\ncase \"$*\" in *ls-files*) sleep 30 ;; esac\nexec '{real}' \"$@\"\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn a_run_killed_midway_shows_as_interrupted() {
    use std::os::unix::process::CommandExt as _;
    let tree = repo();
    tree.apply(FIX, &["--check"]).code(0);
    let reply = tree.outside().join("kill.md");
    std::fs::write(&reply, FIX).unwrap();
    let bin = hanging_git(tree.outside());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("salve"))
        .args(["apply"])
        .arg(&reply)
        .current_dir(&tree.root)
        .env("PATH", path)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        // Not a variable salve's in-process untracked listing knows: it leaves the listing to
        // `git ls-files`, which the shim hangs.
        .env("GIT_SALVE_TEST_UNMODELLED", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if log_json(&tree, &["--status", "running"]).len() == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SIGKILL the whole group: salve and the hanging git under it.
    let pgid = child.id().to_string();
    Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    child.wait().unwrap();

    assert_eq!(tree.read("calc.py"), SRC, "nothing was written");
    let runs = log_json(&tree, &[]);
    let statuses: Vec<&str> = runs.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["interrupted", "checked"]);
    assert!(runs[0]["ended_at"].is_null());
    let text = run(&tree, &["log"]);
    assert!(text.stdout.lines().next().unwrap().contains("interrupted"));
    let id = runs[0]["id"].as_str().unwrap();
    let reply_back = run(&tree, &["show", id, "--artifact", "raw_reply"]);
    assert_eq!(reply_back.stdout, FIX);
    let store = salve_store::Store::open(&tree.root).unwrap();
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
    // The next apply records as usual.
    tree.apply(FIX, &[]).code(0);
    assert_eq!(log_json(&tree, &[])[0]["status"], "applied");
}

#[test]
fn export_then_import_into_an_empty_repository_shows_the_same() {
    let tree = repo();
    tree.apply(FIX, &[]).code(0);
    tree.apply(MISS, &[]).code(1);
    tree.apply(FIX, &[]).code(0);
    let export = run(&tree, &["export", "--all"]);
    export.code(0);
    assert_eq!(export.stdout.lines().count(), 3);
    let file = tree.outside().join("runs.jsonl");
    std::fs::write(&file, &export.stdout).unwrap();

    let other = Tree::git();
    let imported = Run::from(
        other
            .salve()
            .args(["import", "--json"])
            .arg(&file)
            .output()
            .unwrap(),
    );
    imported.code(0);
    assert_eq!(imported.json()["imported"], 3);

    assert_eq!(run(&other, &["log"]).stdout, run(&tree, &["log"]).stdout);
    for r in log_json(&tree, &[]) {
        let id = r["id"].as_str().unwrap();
        for extra in [
            &[][..],
            &["--json"],
            &["--diff"],
            &["--artifact", "raw_reply"],
        ] {
            let mut args = vec!["show", id];
            args.extend_from_slice(extra);
            let here = run(&tree, &args);
            let there = run(&other, &args);
            here.code(0);
            assert_eq!(there.stdout, here.stdout, "salve show {args:?}");
        }
    }
    // One run exported alone, imported again from stdin: already there, skipped.
    let id = log_json(&tree, &[])[0]["short_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let one = run(&tree, &["export", &id]);
    assert_eq!(one.stdout.lines().count(), 1);
    let again = Run::from(
        other
            .salve()
            .args(["import", "-"])
            .write_stdin(one.stdout)
            .output()
            .unwrap(),
    );
    again.code(0);
    assert!(
        again.stderr.contains("imported 0 runs, skipped 1"),
        "{}",
        again.stderr
    );
}

#[test]
fn a_record_of_an_older_schema_is_migrated() {
    let tree = repo();
    std::fs::create_dir_all(salve_dir(&tree)).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../salve-store/tests/fixtures/v1.db");
    std::fs::copy(fixture, salve_dir(&tree).join("salve.db")).unwrap();
    let runs = log_json(&tree, &[]);
    let ids: Vec<&str> = runs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "0192f0a1b2c3aaaa0003",
            "0192f0a1b2c3aaaa0002",
            "0192f0a1b2c3aaaa0001"
        ]
    );
    assert_eq!(runs[2]["files"], 2);
    assert_eq!(runs[2]["added"], 13);
    let show = run(&tree, &["show", "0192f0a1b2c3aaaa0003"]);
    show.code(0);
    assert!(show
        .stdout
        .contains("attempt 1: patch set 1, exit 101, test_failure, 5.0s"));
    assert!(show
        .stdout
        .contains("model: claude, sonnet, 3000 in / 400 out tokens"));
    // New runs land next to the old ones.
    tree.apply(FIX, &[]).code(0);
    assert_eq!(log_json(&tree, &[]).len(), 4);
}

#[test]
fn a_record_from_a_newer_salve_is_left_alone() {
    let tree = repo();
    tree.apply(FIX, &["--check"]).code(0);
    let db = salve_dir(&tree).join("salve.db");
    // gc folds the WAL into the file, so the header is current: bytes 60..64 hold
    // `PRAGMA user_version`, big-endian.
    run(&tree, &["gc", "--older-than", "never"]).code(0);
    let wal = salve_dir(&tree).join("salve.db-wal");
    assert!(std::fs::metadata(&wal).map_or(0, |m| m.len()) == 0);
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[60..64].copy_from_slice(&99u32.to_be_bytes());
    std::fs::write(&db, &bytes).unwrap();
    let before = std::fs::read(&db).unwrap();
    let out = run(&tree, &["log"]);
    out.code(2);
    assert!(
        out.stderr.contains("newer than this salve knows"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("Hint:"), "{}", out.stderr);
    // An apply still works; only its record is skipped, with a warning.
    let applied = tree.apply(FIX, &[]);
    applied.code(0);
    assert!(
        applied.stderr.contains("not recorded"),
        "{}",
        applied.stderr
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_plain_directory_is_recorded_only_with_a_dot_salve_directory() {
    let tree = Tree::plain();
    tree.write("calc.py", SRC);
    tree.apply(FIX, &["--check"]).code(0);
    assert!(
        !tree.exists(".salve"),
        "apply must not litter a plain directory"
    );
    let out = run(&tree, &["log"]);
    out.code(0);
    assert!(out.stderr.contains("no record here"), "{}", out.stderr);

    std::fs::create_dir(tree.path(".salve")).unwrap();
    tree.apply(FIX, &[]).code(0);
    assert!(tree.exists(".salve/salve.db"));
    let runs = log_json(&tree, &[]);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["status"], "applied");
    assert!(runs[0]["baseline"].is_null());
}

#[test]
fn gc_prunes_old_runs() {
    let tree = repo();
    tree.apply(FIX, &["--check"]).code(0);
    tree.apply(MISS, &["--check"]).code(1);
    let kept = run(&tree, &["gc"]);
    kept.code(0);
    assert_eq!(log_json(&tree, &[]).len(), 2);
    let pruned = run(&tree, &["gc", "--older-than", "0s", "--json"]);
    pruned.code(0);
    assert_eq!(pruned.json()["runs_pruned"], 2);
    assert!(log_json(&tree, &[]).is_empty());
    run(&tree, &["gc", "--older-than", "soon"]).code(2);
}

#[test]
fn the_recorded_diff_covers_created_and_deleted_files() {
    let tree = repo();
    tree.write("old.txt", "gone soon\n").commit("old");
    let reply = "*** Begin Patch\n*** Add File: notes/new.txt\n+first\n+second\n*** Delete File: old.txt\n*** Update File: calc.py\n@@\n def count(items):\n-    return len(items)\n+    return len(list(items))\n*** End Patch\n";
    tree.apply(reply, &[]).code(0);
    let id = log_json(&tree, &[])[0]["id"].as_str().unwrap().to_owned();
    let diff = run(&tree, &["show", &id, "--diff"]);
    diff.code(0);
    tree.git_cmd(&["add", "-A"]);
    let git = tree.git_cmd(&["diff", "--cached"]);
    // Same hunks as git, file by file (git orders files by path, the record by the reply).
    let split = |text: &str| -> std::collections::BTreeMap<String, String> {
        text.split("diff --git ")
            .filter(|c| !c.is_empty())
            .map(|c| {
                let body: String = c
                    .lines()
                    .filter(|l| !l.starts_with("index "))
                    .map(|l| format!("{l}\n"))
                    .collect();
                (c.lines().next().unwrap().to_owned(), body)
            })
            .collect()
    };
    assert_eq!(split(&diff.stdout), split(&git));
    let rec = run(&tree, &["show", &id, "--json"]).json();
    let changes: Vec<(&str, &str)> = rec["patch_sets"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["change"].as_str().unwrap()))
        .collect();
    assert_eq!(
        changes,
        [
            ("notes/new.txt", "add"),
            ("old.txt", "delete"),
            ("calc.py", "modify")
        ]
    );
}

#[test]
fn a_partial_apply_records_both_fates_and_loose_placements_record_a_decision() {
    let tree = repo();
    tree.write("other.py", "X = 1\n").commit("other");
    // calc.py's context has stray trailing spaces (placed by a loose rung); other.py's edit
    // matches nothing (refused).
    let reply = "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def total(items):   \n-    return sum(items)\n+    return sum(items) or 0\n```\n\n```diff\n--- a/other.py\n+++ b/other.py\n@@ -1 +1 @@\n-Y = 2\n+Y = 3\n```\n";
    tree.apply(reply, &["--partial"]).code(1);
    let r = &log_json(&tree, &[])[0];
    assert_eq!(r["status"], "partial");
    assert_eq!(
        (r["files"].as_u64(), r["added"].as_u64()),
        (Some(1), Some(1))
    );
    let rec = run(&tree, &["show", r["id"].as_str().unwrap(), "--json"]).json();
    let sets = rec["patch_sets"].as_array().unwrap();
    assert_eq!(sets.len(), 2);
    assert_eq!(sets[0]["status"], "applied");
    assert_eq!(sets[0]["files"][0]["path"], "calc.py");
    assert!(sets[0]["diff_sha256"].is_string());
    assert_eq!(sets[1]["status"], "rejected");
    assert_eq!(sets[1]["files"][0]["path"], "other.py");
    assert!(sets[1]["reason"]
        .as_str()
        .unwrap()
        .starts_with("other.py: "));
    let decisions = rec["decisions"].as_array().unwrap();
    let chosen: Vec<&str> = decisions
        .iter()
        .map(|d| d["chosen"].as_str().unwrap())
        .collect();
    assert_eq!(chosen.len(), 2, "{chosen:?}");
    assert!(
        chosen[0].starts_with("calc.py hunk 1: applied at lines 1-2 by "),
        "{chosen:?}"
    );
    assert!(!chosen[0].ends_with(" by exact"), "{chosen:?}");
    assert!(
        chosen[1].starts_with("other.py hunk 1: refused"),
        "{chosen:?}"
    );
    let text = run(&tree, &["show", r["id"].as_str().unwrap()]).stdout;
    assert!(text.contains("decision 1: calc.py hunk 1"), "{text}");
}

/// Counts are what git would show for what was written: a change inside one line is `+1 -1`
/// however the reply spelled it, and a run that wrote nothing counts nothing.
#[test]
fn counts_come_from_the_diff_that_was_written() {
    let tree = repo();
    let before = tree.read("calc.py");
    let line = before.lines().nth(1).unwrap().to_owned();
    let word = line.split_whitespace().last().unwrap().to_owned();
    let edit = serde_json::json!([{
        "path": "calc.py",
        "old_string": format!("{line}\n"),
        "new_string": format!("{}\n", line.replacen(&word, &format!("{word}  # checked"), 1)),
    }]);
    let reply = format!("```json\n{edit}\n```\n");
    let checked = tree.apply(&reply, &["--check", "--json"]);
    checked.code(0);
    let file = &checked.json()["files"][0];
    assert_eq!(
        (file["added"].clone(), file["removed"].clone()),
        (1.into(), 1.into())
    );
    let applied = tree.apply(&reply, &["--json"]);
    applied.code(0);
    let file = &applied.json()["files"][0];
    assert_eq!(
        (file["added"].clone(), file["removed"].clone()),
        (1.into(), 1.into())
    );
    let again = tree.apply(&reply, &["--json"]);
    assert_eq!(again.json()["outcome"], "already_applied");
    let refused = tree.apply(&reply.replace("calc.py", "nothing.py"), &[]);
    refused.code(1);

    let runs = log_json(&tree, &[]);
    let totals: Vec<(String, u64, u64)> = runs
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap().to_owned(),
                r["added"].as_u64().unwrap(),
                r["removed"].as_u64().unwrap(),
            )
        })
        .collect();
    // Newest first: refused, already applied, applied, checked.
    assert_eq!(
        totals,
        [
            ("refused".to_owned(), 0, 0),
            ("already_applied".to_owned(), 0, 0),
            ("applied".to_owned(), 1, 1),
            ("checked".to_owned(), 0, 0),
        ]
    );
}
