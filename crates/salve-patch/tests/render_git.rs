//! `render::unified_diff` against git: byte-equal to `git diff --no-index` (without its `index`
//! line) on fixed cases, and accepted by `git apply` with the right result on random ones.
//! Skipped (with a note) when git is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use salve_patch::unified_diff;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../../../tests/support/skip.rs"]
mod skip;

static SEQ: AtomicUsize = AtomicUsize::new(0);

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "salve-render-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(dir.join("x")).unwrap();
    std::fs::create_dir_all(dir.join("y")).unwrap();
    dir
}

fn git(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
    Command::new("git")
        .args(["-c", "core.quotepath=false", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .ok()
}

/// `git diff --no-index x/f y/f` without its `index` line, or `None` without git.
fn git_diff(old: &str, new: &str) -> Option<String> {
    let dir = scratch();
    std::fs::write(dir.join("x/f"), old).unwrap();
    std::fs::write(dir.join("y/f"), new).unwrap();
    let out = git(&dir, &["diff", "--no-index", "--no-color", "x/f", "y/f"])?;
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Some(
        text.split_inclusive('\n')
            .filter(|l| !l.starts_with("index "))
            .collect(),
    )
}

#[test]
fn matches_git_diff_no_index() {
    let base: String = (1..=30).map(|i| format!("  line {i}\n")).collect();
    let cases = [
        base.replace("  line 5\n", "  line five\n"),
        base.replace("  line 5\n", "  line five\n")
            .replace("  line 25\n", ""),
        base.replace("  line 5\n", "  line five\n")
            .replace("  line 11\n", "  line eleven\n"),
        base.replace("  line 1\n", "  first\n  second\n"),
        base.trim_end().to_string(),
        base.replace('\n', "\r\n").replace("line 7", "line seven"),
        format!("{base}  extra\n"),
        // A section heading: the nearest earlier line starting with a letter.
        base.replace("  line 3\n", "fn heading() {\n")
            .replace("  line 9\n", "  changed\n"),
    ];
    for new in &cases {
        // Headings come from the old file, so put the same heading line in it for the last case.
        let old = if new.contains("fn heading") {
            base.replace("  line 3\n", "fn heading() {\n")
        } else {
            base.clone()
        };
        let Some(expected) = git_diff(&old, new) else {
            skip::skip("render_git", "git is not available");
            return;
        };
        assert_eq!(unified_diff("x/f", "y/f", &old, new), expected);
    }
}

/// Our diff of `old` to `new`, applied by `git apply` to `old`, gives `new`.
fn git_applies(old: &str, new: &str) {
    let dir = scratch();
    if git(&dir, &["init", "-q"]).is_none() {
        skip::skip("render_git", "git is not available");
        return;
    }
    std::fs::write(dir.join("f"), old).unwrap();
    let patch = unified_diff("f", "f", old, new);
    std::fs::write(dir.join("p.diff"), &patch).unwrap();
    let out = git(&dir, &["apply", "p.diff"]).unwrap();
    assert!(
        out.status.success(),
        "git apply refused:\n{patch}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(dir.join("f")).unwrap(), new);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn git_applies_create_and_delete() {
    let dir = scratch();
    if git(&dir, &["init", "-q"]).is_none() {
        return;
    }
    let patch = unified_diff("/dev/null", "n.txt", "", "a\nb");
    std::fs::write(dir.join("p.diff"), &patch).unwrap();
    assert!(
        git(&dir, &["apply", "p.diff"]).unwrap().status.success(),
        "{patch}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("n.txt")).unwrap(), "a\nb");
    let patch = unified_diff("n.txt", "/dev/null", "a\nb", "");
    std::fs::write(dir.join("p.diff"), &patch).unwrap();
    assert!(
        git(&dir, &["apply", "p.diff"]).unwrap().status.success(),
        "{patch}"
    );
    assert!(!dir.join("n.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

fn text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(0u8..5, 0..25),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(v, nl, crlf)| {
            const LINES: [&str; 5] = ["a", "b", "", "  c", "}"];
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut s = v
                .iter()
                .map(|&i| LINES[i as usize])
                .collect::<Vec<_>>()
                .join(eol);
            if nl && !v.is_empty() {
                s.push_str(eol);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    #[test]
    fn git_apply_accepts_random_diffs(old in text(), new in text()) {
        prop_assume!(old != new);
        git_applies(&old, &new);
    }
}
