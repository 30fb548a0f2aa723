//! `salve apply` end to end: exit codes, flags, the JSON report, path attacks, file kinds,
//! resolution, baselines, modes and all-or-nothing writes.

use std::io::Write as _;
use std::process::Stdio;

use crate::support::{Run, Tree};

pub(crate) const GREET: &str =
    "def greet(name):\n    print(\"helo\", name)\n\n\ndef main():\n    greet(\"world\")\n";

pub(crate) const GREET_FIX: &str = "Fixed the typo:\n\n```diff\n--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    print(\"helo\", name)\n+    print(\"hello\", name)\n```\n";

/// A second file, which the failing edit in the all-or-nothing tests does not match at all.
pub(crate) const OTHER: &str = "import os\n\nROOT = os.getcwd()\n";

pub(crate) fn greet_tree() -> Tree {
    let tree = Tree::git();
    tree.write("greet.py", GREET).commit("init");
    tree
}

/// A unified diff for one file that replaces `old` by `new` with one context line before.
pub(crate) fn diff(path: &str, before: &str, old: &str, new: &str) -> String {
    format!(
        "```diff\n--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n {before}\n-{old}\n+{new}\n```\n"
    )
}

// ---------------------------------------------------------------------------------------------
// Exit codes and output

#[test]
fn applies_and_exits_0_with_a_per_hunk_summary() {
    let tree = greet_tree();
    let run = tree.apply(GREET_FIX, &[]);
    run.code(0);
    assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
    insta::assert_snapshot!(run.stdout, @r"
    greet.py: applied (modify, unified, +1 -1)
      hunk 1: applied at lines 1-2 (exact)
    applied: 1 file changed (+1 -1)
    ");
}

#[test]
fn already_applied_exits_0_and_writes_nothing() {
    let tree = Tree::git();
    tree.write("greet.py", GREET.replace("helo", "hello"))
        .commit("init");
    let before = tree.snapshot();
    let run = tree.apply(GREET_FIX, &[]);
    run.code(0);
    assert!(run.stdout.contains("already applied"), "{}", run.stdout);
    assert_eq!(tree.snapshot(), before);
}

#[test]
fn a_refused_hunk_exits_1_and_writes_nothing() {
    let tree = greet_tree();
    let before = tree.snapshot();
    let reply = diff(
        "greet.py",
        "def farewell(name):",
        "    print(\"bye\", name)",
        "    print(\"goodbye\", name)",
    );
    let run = tree.apply(&reply, &[]);
    run.code(1);
    assert_eq!(tree.snapshot(), before);
    assert!(run.stdout.contains("not found"), "{}", run.stdout);
    assert!(
        run.stdout.contains("refused: nothing written"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_reply_without_edits_exits_1() {
    let tree = greet_tree();
    let run = tree.apply("I think the code looks fine as it is.\n", &[]);
    run.code(1);
    assert!(run.stdout.contains("no_edit"), "{}", run.stdout);
}

#[test]
fn usage_and_environment_errors_exit_2_with_a_hint() {
    let tree = greet_tree();

    let run = tree.apply(GREET_FIX, &["--base", "no-such-rev"]);
    run.code(2);
    assert!(
        run.stderr.contains("Error: revision `no-such-rev`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("Hint:"), "{}", run.stderr);
    assert_eq!(tree.read("greet.py"), GREET);
    // The repository is looked up while the reply is read and placed; its error still wins over
    // a reply without edits, a hunk that places nowhere, and with or without a checkpoint.
    let nowhere = GREET_FIX.replace("def greet", "def nowhere");
    for (reply, flags) in [
        ("no edit here", &["--no-checkpoint"][..]),
        (nowhere.as_str(), &["--no-checkpoint", "--no-record"][..]),
        (nowhere.as_str(), &[][..]),
    ] {
        let args: Vec<&str> = ["--base", "no-such-rev"]
            .iter()
            .chain(flags)
            .copied()
            .collect();
        let run = tree.apply(reply, &args);
        run.code(2);
        assert!(
            run.stderr.contains("Error: revision `no-such-rev`"),
            "{reply:?} {flags:?}: {}",
            run.stderr
        );
    }

    let run = Run::from(
        tree.salve()
            .args(["apply", "missing-reply.md"])
            .output()
            .unwrap(),
    );
    run.code(2);
    assert!(
        run.stderr.contains("cannot read the reply"),
        "{}",
        run.stderr
    );

    let run = Run::from(
        tree.salve()
            .args(["-C", "no/such/dir", "apply", "-"])
            .write_stdin(GREET_FIX)
            .output()
            .unwrap(),
    );
    run.code(2);
    assert!(run.stderr.contains("no/such/dir"), "{}", run.stderr);

    let run = Run::from(
        tree.salve()
            .args(["apply", "--no-such-flag"])
            .output()
            .unwrap(),
    );
    run.code(2);

    let plain = Tree::plain();
    plain.write("greet.py", GREET);
    let run = plain.apply(GREET_FIX, &["--base", "HEAD"]);
    run.code(2);
    assert!(
        run.stderr.contains("not inside a git repository"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_reply_that_is_not_utf8_is_a_usage_error() {
    let tree = greet_tree();
    let file = tree.outside().join("reply.bin");
    std::fs::write(&file, b"--- a/greet.py\n\xff\xfe\n").unwrap();
    let run = Run::from(tree.salve().arg("apply").arg(&file).output().unwrap());
    run.code(2);
    assert!(run.stderr.contains("not UTF-8"), "{}", run.stderr);
}

#[test]
fn a_panic_is_an_internal_error_with_exit_101() {
    let tree = greet_tree();
    let run = Run::from(
        tree.salve()
            .env("SALVE_DEBUG_PANIC", "1")
            .args(["apply", "-"])
            .write_stdin(GREET_FIX)
            .output()
            .unwrap(),
    );
    run.code(101);
    assert!(run.stderr.contains("Internal error:"), "{}", run.stderr);
    assert!(
        run.stderr.contains("this is a bug in salve"),
        "{}",
        run.stderr
    );
}

#[test]
fn quiet_prints_nothing_on_success() {
    let tree = greet_tree();
    let run = tree.apply(GREET_FIX, &["--quiet"]);
    run.code(0);
    assert_eq!(run.stdout, "");
    assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let tree = greet_tree();
    let file = tree.outside().join("reply.md");
    std::fs::write(&file, GREET_FIX).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("salve"))
        .current_dir(&tree.root)
        .args(["--json", "apply", "--check"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------------------------
// Flags

#[test]
fn check_places_everything_and_writes_nothing() {
    let tree = greet_tree();
    let before = tree.snapshot();
    let run = tree.apply(GREET_FIX, &["--check"]);
    run.code(0);
    assert_eq!(tree.snapshot(), before);
    assert!(
        run.stdout.contains("check: 1 file would change"),
        "{}",
        run.stdout
    );
    let json = tree.apply(GREET_FIX, &["--check", "--json"]).json();
    assert_eq!(json["check_only"], true);
    assert_eq!(json["outcome"], "applied");
}

#[test]
fn all_or_nothing_across_two_files() {
    let tree = greet_tree();
    tree.write("other.py", OTHER).commit("other");
    let before = tree.snapshot();
    let reply = format!(
        "{GREET_FIX}\nAnd:\n\n{}",
        diff("other.py", "class Cache:", "    size = 0", "    size = 64")
    );
    let run = tree.apply(&reply, &["--json"]);
    run.code(1);
    assert_eq!(tree.snapshot(), before, "nothing may be written");
    let json = run.json();
    assert_eq!(json["outcome"], "refused");
    assert_eq!(json["files"][0]["path"], "greet.py");
    assert_eq!(json["files"][0]["status"], "skipped");
    assert_eq!(json["files"][1]["status"], "not_found");
}

#[test]
fn partial_writes_the_files_that_place() {
    let tree = greet_tree();
    tree.write("other.py", OTHER).commit("other");
    let reply = format!(
        "{GREET_FIX}\nAnd:\n\n{}",
        diff("other.py", "class Cache:", "    size = 0", "    size = 64")
    );
    let run = tree.apply(&reply, &["--partial", "--json"]);
    run.code(1);
    assert_eq!(run.json()["outcome"], "partial");
    assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
    assert_eq!(tree.read("other.py"), OTHER);
}

#[test]
fn reverse_undoes_an_applied_reply() {
    let tree = greet_tree();
    tree.apply(GREET_FIX, &[]).code(0);
    assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
    tree.apply(GREET_FIX, &["--reverse"]).code(0);
    assert_eq!(tree.read("greet.py"), GREET);
}

#[test]
fn json_report_shape() {
    let tree = greet_tree();
    let run = tree.apply(GREET_FIX, &["--json"]);
    run.code(0);
    assert!(
        run.stderr.is_empty() || !run.stderr.contains('{'),
        "stdout only carries data"
    );
    let json = run.json();
    assert_eq!(json["outcome"], "applied");
    assert_eq!(json["check_only"], false);
    let file = &json["files"][0];
    assert_eq!(file["path"], "greet.py");
    assert_eq!(file["change"], "modify");
    assert_eq!(file["format"], "unified");
    assert_eq!(file["status"], "applied");
    assert_eq!(file["added"], 1);
    assert_eq!(file["removed"], 1);
    let hunk = &file["hunks"][0];
    assert_eq!(hunk["index"], 0);
    assert_eq!(hunk["status"], "applied");
    assert_eq!(hunk["rung"], "exact");
    assert_eq!(hunk["lines"]["start"], 1);
    assert_eq!(hunk["lines"]["end"], 2);
}

#[test]
fn reads_the_reply_from_stdin() {
    for args in [vec!["apply"], vec!["apply", "-"]] {
        let tree = greet_tree();
        let run = Run::from(
            tree.salve()
                .args(&args)
                .write_stdin(GREET_FIX)
                .output()
                .unwrap(),
        );
        run.code(0);
        assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
    }
}

#[test]
fn dash_c_applies_in_another_directory() {
    let tree = Tree::plain();
    tree.write("proj/greet.py", GREET);
    tree.write("reply.md", GREET_FIX);
    // The reply path is found from the current directory...
    let run = Run::from(
        tree.salve()
            .args(["-C", "proj", "apply", "reply.md"])
            .output()
            .unwrap(),
    );
    run.code(0);
    assert_eq!(tree.read("proj/greet.py"), GREET.replace("helo", "hello"));
    assert!(!tree.exists("greet.py"));
    // ...or, when it is not there, from -C DIR.
    tree.write("proj/undo.md", GREET_FIX);
    let run = Run::from(
        tree.salve()
            .args(["-C", "proj", "apply", "-R", "undo.md"])
            .output()
            .unwrap(),
    );
    run.code(0);
    assert_eq!(tree.read("proj/greet.py"), GREET);
}

// ---------------------------------------------------------------------------------------------
// Path attacks: every one refuses the whole reply, writes nothing and names the status.

fn assert_attack_refused(tree: &Tree, reply: &str) -> serde_json::Value {
    let before = tree.snapshot();
    let outside_before = crate::support::snapshot(tree.outside());
    let run = tree.apply(reply, &["--json", "--partial"]);
    run.code(1);
    assert_eq!(tree.snapshot(), before, "the tree must not change");
    // The refused run is recorded under .git/salve/ by design; everything else outside the
    // work tree, .git/hooks and .git/config included, must stay as it was.
    let unrecorded = |mut snap: std::collections::BTreeMap<String, Vec<u8>>| {
        snap.remove("reply.md");
        snap.retain(|path, _| !path.starts_with("work/.git/salve/"));
        snap
    };
    let outside_after = unrecorded(crate::support::snapshot(tree.outside()));
    let outside_before = unrecorded(outside_before);
    assert_eq!(
        outside_after, outside_before,
        "nothing may be written outside the tree"
    );
    let json = run.json();
    assert_eq!(json["outcome"], "refused");
    let statuses: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert!(statuses.contains(&"path_rejected"), "{statuses:?}");
    assert!(
        statuses
            .iter()
            .all(|s| *s == "path_rejected" || *s == "skipped"),
        "{statuses:?}"
    );
    json
}

fn new_file(path: &str) -> String {
    format!("```diff\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo pwned\n```\n")
}

#[test]
fn rejects_absolute_paths() {
    let tree = greet_tree();
    let target = tree.outside().join("abs-pwned.sh");
    let reply = format!(
        "{GREET_FIX}\n{}",
        new_file(target.to_str().unwrap()).replace("b//", "/")
    );
    assert_attack_refused(&tree, &reply);
    assert!(!target.exists());
}

#[test]
fn rejects_parent_directory_escapes() {
    let tree = greet_tree();
    assert_attack_refused(&tree, &format!("{GREET_FIX}\n{}", new_file("../escape.sh")));
    assert_attack_refused(
        &tree,
        &format!("{}\n{GREET_FIX}", new_file("src/../../escape.sh")),
    );
    assert!(!tree.outside().join("escape.sh").exists());
}

#[test]
fn rejects_paths_inside_dot_git() {
    let tree = greet_tree();
    let json = assert_attack_refused(
        &tree,
        &format!("{GREET_FIX}\n{}", new_file(".git/hooks/post-checkout")),
    );
    let rejected = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["status"] == "path_rejected")
        .unwrap();
    assert!(
        rejected["message"].as_str().unwrap().contains(".git"),
        "{rejected}"
    );
    assert!(!tree.exists(".git/hooks/post-checkout"));
    let config_edit = "```diff\n--- a/.git/config\n+++ b/.git/config\n@@ -1,1 +1,2 @@\n [core]\n+\tfsmonitor = evil\n```\n";
    assert_attack_refused(&tree, config_edit);
    assert_attack_refused(
        &tree,
        &config_edit.replace(".git/config", "src/../.GIT/config"),
    );
    assert!(!tree.read(".git/config").contains("evil"));
}

#[cfg(unix)]
#[test]
fn rejects_symlinks_that_lead_out_of_the_tree() {
    let tree = greet_tree();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), tree.path("vendor")).unwrap();
    assert_attack_refused(
        &tree,
        &format!("{GREET_FIX}\n{}", new_file("vendor/pwned.sh")),
    );
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

// ---------------------------------------------------------------------------------------------
// File kinds and limits

#[test]
fn refuses_binary_files() {
    let tree = greet_tree();
    tree.write("data.bin", b"head\n\x00\x01\x02\nline\n")
        .commit("bin");
    let before = tree.snapshot();
    let run = tree.apply(&diff("data.bin", "head", "line", "LINE"), &[]);
    run.code(1);
    assert!(run.stdout.contains("binary"), "{}", run.stdout);
    assert_eq!(tree.snapshot(), before);
}

#[test]
fn refuses_files_over_the_size_limit_with_a_named_error() {
    let tree = greet_tree();
    let big = format!("{GREET}{}", "# padding\n".repeat(100));
    tree.write("greet.py", &big);
    let run = tree.apply(GREET_FIX, &["--max-file-size", "500"]);
    run.code(2);
    assert!(
        run.stderr.contains("over the limit of 500 bytes"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--max-file-size"), "{}", run.stderr);
    assert_eq!(tree.read("greet.py"), big);
}

#[test]
fn creates_deletes_and_renames() {
    let tree = Tree::git();
    tree.write("old_name.py", "VALUE = 1\n")
        .write("gone.txt", "bye\nnow\n")
        .commit("init");
    let reply = "\
Here are the changes:

```diff
diff --git a/old_name.py b/new_name.py
similarity index 100%
rename from old_name.py
rename to new_name.py
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-bye
-now
diff --git a/pkg/fresh.txt b/pkg/fresh.txt
new file mode 100644
--- /dev/null
+++ b/pkg/fresh.txt
@@ -0,0 +1,2 @@
+hello
+there
```
";
    let run = tree.apply(reply, &["--json"]);
    run.code(0);
    assert!(!tree.exists("old_name.py"));
    assert_eq!(tree.read("new_name.py"), "VALUE = 1\n");
    assert!(!tree.exists("gone.txt"));
    assert_eq!(tree.read("pkg/fresh.txt"), "hello\nthere\n");
    let json = run.json();
    let changes: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["rename", "delete", "create"]);

    // Applying again: everything is already in place.
    tree.apply(reply, &[]).code(0);
    // Reversed: back to the start.
    tree.apply(reply, &["--reverse"]).code(0);
    assert_eq!(tree.read("old_name.py"), "VALUE = 1\n");
    assert_eq!(tree.read("gone.txt"), "bye\nnow\n");
    assert!(!tree.exists("pkg"), "the emptied directory is removed");
}

#[test]
fn refuses_to_create_over_a_different_file() {
    let tree = greet_tree();
    tree.write("notes.txt", "mine\n").commit("notes");
    let reply = "```diff\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+theirs\n```\n";
    let run = tree.apply(reply, &[]);
    run.code(1);
    assert!(run.stdout.contains("already exists"), "{}", run.stdout);
    assert_eq!(tree.read("notes.txt"), "mine\n");
}

// ---------------------------------------------------------------------------------------------
// Path resolution

#[test]
fn resolves_a_wrong_directory_by_unique_suffix_or_name() {
    let tree = Tree::git();
    tree.write("pkg/src/util.py", "def one():\n    return 1\n")
        .write("app/helpers.py", "def two():\n    return 2\n")
        .commit("init");
    let reply = format!(
        "{}\n{}",
        diff("src/util.py", "def one():", "    return 1", "    return 11"),
        diff(
            "lib/helpers.py",
            "def two():",
            "    return 2",
            "    return 22"
        )
    );
    let run = tree.apply(&reply, &["--json"]);
    run.code(0);
    assert_eq!(tree.read("pkg/src/util.py"), "def one():\n    return 11\n");
    assert_eq!(tree.read("app/helpers.py"), "def two():\n    return 22\n");
    let json = run.json();
    assert_eq!(json["files"][0]["path"], "pkg/src/util.py");
    assert_eq!(json["files"][0]["requested_path"], "src/util.py");
    assert_eq!(json["files"][1]["path"], "app/helpers.py");
    assert_eq!(json["files"][1]["requested_path"], "lib/helpers.py");
}

#[test]
fn refuses_an_ambiguous_path_and_lists_the_candidates() {
    let tree = Tree::git();
    tree.write("a/config.py", "DEBUG = False\nPORT = 1\n")
        .write("b/config.py", "DEBUG = False\nPORT = 2\n")
        .commit("init");
    let before = tree.snapshot();
    let run = tree.apply(
        &diff("config.py", "DEBUG = False", "PORT = 1", "PORT = 8080"),
        &[],
    );
    run.code(1);
    assert!(run.stdout.contains("ambiguous"), "{}", run.stdout);
    assert!(
        run.stdout.contains("a/config.py") && run.stdout.contains("b/config.py"),
        "{}",
        run.stdout
    );
    assert_eq!(tree.snapshot(), before);
}

// ---------------------------------------------------------------------------------------------
// Baselines: the commit the model read

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";

/// An edit of `mul` written against CALC, with `sub` in its context.
const CALC_EDIT: &str = "```diff
--- a/calc.py
+++ b/calc.py
@@ -5,6 +5,6 @@
 def sub(a, b):
     return a - b
 
 
 def mul(a, b):
-    return a * b
+    return b * a
```
";

#[test]
fn a_stale_work_tree_is_merged_from_head() {
    let tree = Tree::git();
    tree.write("calc.py", CALC).commit("init");
    // The work tree moved on after the model read HEAD: `sub` was renamed.
    let drifted = CALC.replace(
        "def sub(a, b):\n    return a - b",
        "def subtract(a, b):\n    return a - b  # renamed",
    );
    tree.write("calc.py", &drifted);
    let run = tree.apply(CALC_EDIT, &[]);
    run.code(0);
    assert_eq!(
        tree.read("calc.py"),
        drifted.replace("return a * b", "return b * a")
    );
}

#[test]
fn base_names_an_older_commit_the_model_read() {
    let tree = Tree::git();
    tree.write("calc.py", CALC).commit("v1");
    let drifted = CALC.replace(
        "def sub(a, b):\n    return a - b",
        "def subtract(a, b):\n    return a - b  # renamed",
    );
    tree.write("calc.py", &drifted).commit("v2");
    let run = tree.apply(CALC_EDIT, &["--base", "HEAD~1", "--json"]);
    run.code(0);
    assert_eq!(
        tree.read("calc.py"),
        drifted.replace("return a * b", "return b * a")
    );
}

#[test]
fn a_conflicting_stale_edit_is_refused_and_names_the_lines() {
    let tree = Tree::git();
    tree.write("calc.py", CALC).commit("init");
    // The work tree changed the very line the model changes.
    let drifted = CALC.replace(
        "    return a * b\n",
        "    product = a * b\n    log(product)\n    return product\n",
    );
    tree.write("calc.py", &drifted);
    let run = tree.apply(CALC_EDIT, &["--json"]);
    run.code(1);
    assert_eq!(tree.read("calc.py"), drifted);
    let json = run.json();
    let file = &json["files"][0];
    assert_eq!(file["status"], "conflict", "{file}");
    let hunk = &file["hunks"][0];
    let named_lines =
        hunk["lines"].is_object() || hunk["message"].as_str().is_some_and(|m| m.contains("line"));
    assert!(named_lines, "the report must say where: {hunk}");
}

// ---------------------------------------------------------------------------------------------
// Modes

#[cfg(unix)]
#[test]
fn file_modes_are_kept_and_changed_on_request() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |tree: &Tree, p: &str| {
        std::fs::metadata(tree.path(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    let tree = Tree::git();
    tree.write("run.sh", "#!/bin/sh\necho helo\n")
        .write("private.txt", "secret\nvalue\n")
        .write("tool.sh", "#!/bin/sh\necho tool\n");
    std::fs::set_permissions(tree.path("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        tree.path("private.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::set_permissions(tree.path("tool.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    tree.commit("init");
    let reply = format!(
        "{}\n{}\n```diff\ndiff --git a/tool.sh b/tool.sh\nold mode 100644\nnew mode 100755\n--- a/tool.sh\n+++ b/tool.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo tool\n+echo tool!\n```\n",
        diff("run.sh", "#!/bin/sh", "echo helo", "echo hello"),
        diff("private.txt", "secret", "value", "other")
    );
    tree.apply(&reply, &[]).code(0);
    assert_eq!(tree.read("run.sh"), "#!/bin/sh\necho hello\n");
    assert_eq!(mode(&tree, "run.sh"), 0o755);
    assert_eq!(mode(&tree, "private.txt"), 0o600);
    assert_eq!(mode(&tree, "tool.sh"), 0o755);
}

// ---------------------------------------------------------------------------------------------
// Several edits for one file

#[test]
fn several_blocks_for_one_file_are_placed_against_the_original() {
    let tree = greet_tree();
    let reply = "Two changes to greet.py:

greet.py
```python
<<<<<<< SEARCH
    print(\"helo\", name)
=======
    print(\"hello\", name)
>>>>>>> REPLACE
```

And the call:

greet.py
```python
<<<<<<< SEARCH
    greet(\"world\")
=======
    greet(\"there\")
>>>>>>> REPLACE
```
";
    let run = tree.apply(reply, &["--json"]);
    run.code(0);
    assert_eq!(
        tree.read("greet.py"),
        GREET.replace("helo", "hello").replace("world", "there")
    );
    let json = run.json();
    assert_eq!(
        json["files"].as_array().unwrap().len(),
        1,
        "one report per file"
    );
    assert_eq!(json["files"][0]["hunks"].as_array().unwrap().len(), 2);
}

#[test]
fn stdin_piped_with_a_real_pipe() {
    let tree = greet_tree();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("salve"))
        .current_dir(&tree.root)
        .arg("apply")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(GREET_FIX.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(tree.read("greet.py"), GREET.replace("helo", "hello"));
}

// ---------------------------------------------------------------------------------------------
// Whole files with placeholders

const LIB: &str = "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    3\n}\n";

fn whole(path: &str, body: &str) -> String {
    format!("Updated file:\n\n{path}\n```rust\n{body}```\n")
}

#[test]
fn whole_file_placeholders_are_filled_from_the_file() {
    let tree = Tree::git();
    tree.write("lib.rs", LIB).commit("init");
    let reply = whole(
        "lib.rs",
        "fn a() {\n    10\n}\n\n// ... existing code ...\n\nfn c() {\n    3\n}\n",
    );
    let run = tree.apply(&reply, &["--json"]);
    run.code(0);
    assert_eq!(tree.read("lib.rs"), LIB.replace("    1\n", "    10\n"));
    let json = run.json();
    assert!(
        json.get("issues").is_none(),
        "the lazy issue was settled: {json}"
    );
}

#[test]
fn whole_file_placeholders_that_cannot_be_filled_are_refused() {
    let tree = Tree::git();
    tree.write("lib.rs", LIB).commit("init");
    let before = tree.snapshot();
    // Not a placeholder the applier can fill: written as it stands, it would delete b and c.
    for body in [
        "fn a() {\n    10\n}\n\n// the rest of the code stays the same ...\n",
        "fn a() {\n    10\n}\n// rest unchanged\n",
    ] {
        let run = tree.apply(&whole("lib.rs", body), &[]);
        run.code(1);
        assert!(run.stdout.contains("placeholder"), "{}", run.stdout);
        assert_eq!(tree.snapshot(), before);
    }
    // A new file has nothing to fill a placeholder from.
    let run = tree.apply(
        &whole("new.rs", "fn a() {}\n// ... existing code ...\n"),
        &[],
    );
    run.code(1);
    assert!(!tree.exists("new.rs"));
}

#[test]
fn outside_git_a_note_says_undo_cannot_revert_the_apply() {
    let tree = Tree::plain();
    tree.write("a.txt", "one\n");
    let reply = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n```\n";
    let run = tree.apply(reply, &[]);
    run.code(0);
    assert_eq!(tree.read("a.txt"), "two\n");
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("cannot revert"))
        .collect();
    assert_eq!(said.len(), 1, "{}", run.stderr);
    assert!(
        said[0].contains("not in a git repository"),
        "{}",
        run.stderr
    );
    // Nothing to say when nothing is written, or when no checkpoint was asked for.
    let again = tree.apply(reply, &[]);
    assert!(!again.stderr.contains("cannot revert"), "{}", again.stderr);
    tree.write("a.txt", "one\n");
    let opted_out = tree.apply(reply, &["--no-checkpoint"]);
    assert!(
        !opted_out.stderr.contains("cannot revert"),
        "{}",
        opted_out.stderr
    );
}

#[test]
fn check_diff_prints_what_would_be_written_ready_for_git_apply() {
    let tree = Tree::git();
    tree.write("a.txt", "one\ntwo\nthree\n").commit("start");
    let reply = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-two\n+TWO\n```\n";
    let run = tree.apply(reply, &["--check", "--diff"]);
    run.code(0);
    assert_eq!(
        tree.read("a.txt"),
        "one\ntwo\nthree\n",
        "a check writes nothing"
    );
    assert!(run.stdout.contains("-two\n+TWO\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("check:"), "the report goes to stderr");
    assert!(
        run.stderr.contains("check: 1 file would change"),
        "{}",
        run.stderr
    );
    // The diff is what git would apply to get the same result.
    let patch = tree.outside().join("would.diff");
    std::fs::write(&patch, &run.stdout).unwrap();
    tree.git_cmd(&["apply", patch.to_str().unwrap()]);
    assert_eq!(tree.read("a.txt"), "one\nTWO\nthree\n");

    tree.git_cmd(&["checkout", "a.txt"]);
    let json = tree.apply(reply, &["--check", "--diff", "--json"]);
    json.code(0);
    let value = json.json();
    assert_eq!(value["outcome"], "applied");
    assert!(value["diff"].as_str().unwrap().contains("+TWO\n"));
}

/// A delete that names the file only is checked against the commit the model read: a file
/// with uncommitted work, or one the commit does not have, is not deleted.
#[test]
fn deletes_without_content_check_the_baseline() {
    let tree = Tree::git();
    tree.write("keep.py", "x = 1\n")
        .write("clean.py", "y = 2\n")
        .commit("start");
    tree.write("keep.py", "x = 1\n# my unsaved work\n");
    tree.write("new.py", "z = 3\n");
    let codex = |path: &str| format!("*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n");
    let run = tree.apply(&codex("keep.py"), &["--json"]);
    run.code(1);
    assert_eq!(run.json()["files"][0]["status"], "conflict");
    assert!(tree.read("keep.py").contains("my unsaved work"));
    let git_delete = "diff --git a/keep.py b/keep.py\ndeleted file mode 100644\n";
    tree.apply(git_delete, &[]).code(1);
    assert!(tree.exists("keep.py"));
    tree.apply(&codex("new.py"), &[]).code(1);
    assert!(
        tree.exists("new.py"),
        "a file the commit does not have is not deleted"
    );
    // A clean file is what the model saw: deleted.
    tree.apply(&codex("clean.py"), &[]).code(0);
    assert!(!tree.exists("clean.py"));
}

/// Candidates that resemble the quoted text only by chance are noise, not help: a refusal
/// shows none below a similarity of 0.3.
#[test]
fn refusals_leave_out_candidates_that_are_noise() {
    let tree = Tree::git();
    let text: String = (0..40)
        .map(|i| format!("value_{i} = compute({i})\n"))
        .collect();
    tree.write("m.py", &text).commit("start");
    let reply = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n class Unrelated:\n-    pass\n+    x = 1\n def other(): ...\n```\n";
    let run = tree.apply(reply, &["--json"]);
    run.code(1);
    let json = run.json();
    let hunk = &json["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "not_found", "{json}");
    for c in hunk["candidates"].as_array().into_iter().flatten() {
        assert!(c["score"].as_f64().unwrap() >= 0.3, "{c}");
    }
}
