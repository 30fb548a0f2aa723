//! Byte-for-byte agreement with git on edits git itself can judge.
//!
//! Clean patches: real edits are scripted on generated files, `git diff` writes the patch, and
//! `salve apply` must leave exactly the tree `git apply` leaves. 3-way: the model's patch was made
//! against a baseline the work tree has since drifted from (changes near, but not on, the edited
//! lines); salve's result must equal `git merge-file -p ours base theirs`.

// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use crate::scenarios::{describe_diff, git, init_repo, read_tree, salve, write_tree, Entry, Tree};

/// A deterministic source file of `n` lines: mostly distinct lines, with the repeated braces and
/// blank lines real code has.
fn source(n: usize, salt: &str) -> Vec<String> {
    (0..n)
        .map(|i| match i % 6 {
            0 => format!("fn {salt}_{i}(x: u64) -> u64 {{"),
            1 => format!("    let y = x.wrapping_mul({});", i * 7 + 3),
            2 => format!("    // step {i}: fold in the {salt} offset"),
            3 => format!("    y ^ {}", (i * 31) % 97),
            4 => "}".to_owned(),
            _ => String::new(),
        })
        .collect()
}

fn join(lines: &[String], eol: &str, final_newline: bool) -> Vec<u8> {
    let mut s = lines.join(eol);
    if final_newline && !lines.is_empty() {
        s.push_str(eol);
    }
    s.into_bytes()
}

fn file(lines: &[String]) -> Entry {
    Entry::File(join(lines, "\n", true))
}

fn tree(files: &[(&str, Entry)]) -> Tree {
    files
        .iter()
        .map(|(p, e)| ((*p).to_owned(), e.clone()))
        .collect()
}

/// `git diff` from `old` to `new` (renames detected), made in a scratch repository.
fn git_patch(old: &Tree, new: &Tree) -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    init_repo(&repo, old);
    crate::scenarios::clear_worktree(&repo);
    write_tree(&repo, new);
    git(&repo, &["add", "-A"]);
    git(&repo, &["diff", "--cached", "-M", "--no-color"]).stdout
}

/// Applies `patch` to `old` with `git apply` and with `salve apply`; both trees must be equal.
fn assert_same_as_git_apply(name: &str, old: &Tree, new: &Tree) {
    let patch = git_patch(old, new);
    assert!(!patch.is_empty(), "{name}: empty patch");
    let tmp = tempfile::tempdir().unwrap();
    let patch_path = tmp.path().join("reply.patch");
    fs::write(&patch_path, &patch).unwrap();

    let by_git = tmp.path().join("git");
    init_repo(&by_git, old);
    git(&by_git, &["apply", patch_path.to_str().unwrap()]);

    let by_salve = tmp.path().join("salve");
    init_repo(&by_salve, old);
    // The generated edits are about placement and do not keep the code valid (one replaces a
    // closing brace), which git apply does not look at either.
    let out = salve(&by_salve)
        .arg("apply")
        .arg("--no-syntax-check")
        .arg(&patch_path)
        .output()
        .unwrap();

    let want = read_tree(&by_git, true);
    let got = read_tree(&by_salve, true);
    assert_eq!(
        &want, new,
        "{name}: git apply itself did not reproduce the edit"
    );
    assert!(
        out.status.success() && got == want,
        "{name}: salve differs from git apply (exit {:?}):\n{}\nstderr: {}\npatch:\n{}",
        out.status.code(),
        describe_diff(&got, &want),
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&patch)
    );
}

#[test]
fn clean_patches_match_git_apply() {
    let a = source(120, "alpha");
    let b = source(60, "beta");

    // One changed line.
    let mut a1 = a.clone();
    a1[40] = "    let y = x.rotate_left(3);".into();
    assert_same_as_git_apply(
        "one line",
        &tree(&[("src/a.rs", file(&a))]),
        &tree(&[("src/a.rs", file(&a1))]),
    );

    // Many hunks spread over the file.
    let mut a2 = a.clone();
    for i in (3..a2.len()).step_by(15) {
        a2[i] = format!("    y.wrapping_add({i})");
    }
    assert_same_as_git_apply(
        "many hunks",
        &tree(&[("src/a.rs", file(&a))]),
        &tree(&[("src/a.rs", file(&a2))]),
    );

    // An inserted block and a deleted block, changing every later offset.
    let mut a3 = a.clone();
    a3.drain(80..85);
    for (k, l) in ["// inserted", "fn extra() {}", ""].iter().enumerate() {
        a3.insert(40 + k, (*l).to_owned());
    }
    assert_same_as_git_apply(
        "insert and delete",
        &tree(&[("a.rs", file(&a))]),
        &tree(&[("a.rs", file(&a3))]),
    );

    // First and last lines, and the file loses its final newline.
    let mut a4 = a.clone();
    a4[0] = "// first".into();
    let last = a4.len() - 1;
    a4[last] = "// last".into();
    let old = tree(&[("a.rs", file(&a))]);
    let new = tree(&[("a.rs", Entry::File(join(&a4, "\n", false)))]);
    assert_same_as_git_apply("edges, newline dropped", &old, &new);

    // A file without a final newline gets one.
    let old = tree(&[("b.rs", Entry::File(join(&b, "\n", false)))]);
    let mut b1 = b.clone();
    b1.push("// appended".into());
    assert_same_as_git_apply("newline added", &old, &tree(&[("b.rs", file(&b1))]));

    // CRLF file: git diff carries the carriage returns.
    let mut b2 = b.clone();
    b2[10] = "    let y = x ^ 0xff;".into();
    b2.insert(30, "// new line in a CRLF file".into());
    let old = tree(&[("win.rs", Entry::File(join(&b, "\r\n", true)))]);
    let new = tree(&[("win.rs", Entry::File(join(&b2, "\r\n", true)))]);
    assert_same_as_git_apply("crlf", &old, &new);

    // Several files at once: modify, create, delete, rename with an edit.
    let mut b3 = b.clone();
    b3[20] = "    // renamed and edited".into();
    let old = tree(&[
        ("src/a.rs", file(&a)),
        ("src/b.rs", file(&b)),
        ("old.txt", Entry::File(b"bye\n".to_vec())),
    ]);
    let new = tree(&[
        ("src/a.rs", file(&a1)),
        ("src/moved.rs", file(&b3)),
        (
            "docs/new.md",
            Entry::File(
                "# Nouveau\n\nUnicode: é ✓ 日本\n\tand a tab\n"
                    .as_bytes()
                    .to_vec(),
            ),
        ),
    ]);
    assert_same_as_git_apply("multi-file", &old, &new);
}

/// `git merge-file -p ours base theirs`, which must merge cleanly.
fn merge_file(ours: &[u8], base: &[u8], theirs: &[u8]) -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    let p = |name: &str, data: &[u8]| {
        let path = tmp.path().join(name);
        fs::write(&path, data).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (o, b, t) = (p("ours", ours), p("base", base), p("theirs", theirs));
    let out = git(tmp.path(), &["merge-file", "-p", &o, &b, &t]);
    out.stdout
}

/// The work tree holds `ours`, HEAD holds `base`, the reply is `git diff base theirs`.
fn assert_same_as_merge_file(name: &str, base: &[String], ours: &[String], theirs: &[String]) {
    let path = "src/lib.rs";
    let (base_b, ours_b, theirs_b) = (
        join(base, "\n", true),
        join(ours, "\n", true),
        join(theirs, "\n", true),
    );
    let want = merge_file(&ours_b, &base_b, &theirs_b);
    let patch = git_patch(
        &tree(&[(path, Entry::File(base_b.clone()))]),
        &tree(&[(path, Entry::File(theirs_b))]),
    );
    let tmp = tempfile::tempdir().unwrap();
    let patch_path = tmp.path().join("reply.patch");
    fs::write(&patch_path, &patch).unwrap();
    let repo = tmp.path().join("repo");
    init_repo(&repo, &tree(&[(path, Entry::File(base_b))]));
    fs::write(repo.join(path), &ours_b).unwrap();
    let out = salve(&repo)
        .arg("apply")
        .arg("--json")
        .arg(&patch_path)
        .output()
        .unwrap();
    let got = fs::read(repo.join(path)).unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let rungs: Vec<&str> = report["files"][0]["hunks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["rung"].as_str())
        .collect();
    // The drift sits inside each case's context, so only the baseline can place the edit exactly.
    assert!(
        rungs.contains(&"three_way"),
        "{name}: expected a three_way placement, got rungs {rungs:?}"
    );
    let w = tree(&[(path, Entry::File(want.clone()))]);
    let g = tree(&[(path, Entry::File(got.clone()))]);
    assert!(
        out.status.success() && got == want,
        "{name}: salve differs from git merge-file (exit {:?}):\n{}\nstderr: {}\npatch:\n{}",
        out.status.code(),
        describe_diff(&g, &w),
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&patch)
    );
}

#[test]
fn three_way_matches_git_merge_file() {
    let base = source(90, "gamma");

    // Ours changed a line two below the model's edit: inside its context, not on it.
    let mut ours = base.clone();
    ours[22] = "    // changed locally".into();
    let mut theirs = base.clone();
    theirs[20] = "    // changed by the model".into();
    assert_same_as_merge_file("context drift", &base, &ours, &theirs);

    // Several edits each way, interleaved, with a local insertion shifting every later line.
    let mut ours = base.clone();
    ours[12] = "    let y = x; // local".into();
    ours[52] = "    y ^ 1 // local".into();
    ours.insert(30, "// a local note".into());
    let mut theirs = base.clone();
    theirs[10] = "    // model edit 1".into();
    theirs[50] = "    // model edit 2".into();
    theirs[70] = "    // model edit 3".into();
    assert_same_as_merge_file("interleaved", &base, &ours, &theirs);

    // The model inserts and deletes lines next to a local change.
    let mut ours = base.clone();
    ours[41] = "    let y = x.wrapping_mul(2); // local".into();
    let mut theirs = base.clone();
    theirs.drain(44..46);
    theirs.insert(39, "    // model insertion".into());
    assert_same_as_merge_file("insert and delete near local change", &base, &ours, &theirs);
}

#[test]
fn generated_source_has_the_shape_the_tests_rely_on() {
    let s = source(12, "t");
    assert_eq!(s.len(), 12);
    assert_eq!(s[4], "}");
    assert!(s[5].is_empty());
    assert_ne!(s[1], s[7]);
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).is_dir());
}
