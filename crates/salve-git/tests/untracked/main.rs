//! The in-process untracked listing against real git, byte for byte, on random work trees
//! (seeded: `SALVE_PROP_SEED` picks the seed, `SALVE_PROP_TREES` how many trees; both are
//! printed), and each fallback trigger: it falls back, and the answer is still git's.
//!
//! Its own test binary: it sets `HOME` (for the global excludes file and `~/.gitconfig`) and
//! other variables for the whole process, one test at a time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use salve_git::{untracked, Repo};

mod fallback;
mod random;
#[path = "../../../../tests/support/skip.rs"]
mod skip;

/// The process environment is shared: one test at a time changes it.
pub static ENV: Mutex<()> = Mutex::new(());

pub fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The tree's files, ignore files and index, for a failure's message.
fn describe(root: &Path) -> String {
    let script = "find . -path ./.git -prune -o -print | sort; \
                  for f in $(find . -name .gitignore) .git/info/exclude \"$HOME/.config/git/ignore\" \
                  \"$HOME/.gitconfig\" \"$HOME/my-ignore\"; do [ -f \"$f\" ] && \
                  echo \"== $f\" && cat -A \"$f\"; done; echo '== index'; git ls-files -s";
    let out = Command::new("sh")
        .args(["-c", script])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Records as text, for readable failures.
fn shown(records: &[Vec<u8>]) -> Vec<String> {
    records
        .iter()
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect()
}

fn split(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// Whether it was listed in process, and how many records the two listings held.
pub fn assert_same_as_git(root: &Path, what: &str) -> (bool, usize, usize) {
    let repo = Repo::discover(root).unwrap();
    let top = split(&git(
        root,
        &[
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--directory",
            "--no-empty-directory",
        ],
    ));
    let roots: Vec<PathBuf> = top
        .iter()
        .filter_map(|r| r.strip_suffix(b"/"))
        .map(|r| PathBuf::from(std::ffi::OsStr::from_bytes(r)))
        .filter(|d| std::fs::symlink_metadata(root.join(d).join(".git")).is_err())
        .collect();
    let mut below = Vec::new();
    if !roots.is_empty() {
        let mut args = vec!["ls-files", "-z", "--others", "--exclude-standard", "--"];
        let specs: Vec<String> = roots
            .iter()
            .map(|r| format!(":(literal){}", r.to_string_lossy()))
            .collect();
        args.extend(specs.iter().map(String::as_str));
        below = split(&git(root, &args));
        below.sort();
    }
    let named = split(&git(
        root,
        &[
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--",
            ":(glob)**/.salve-tmp-*",
        ],
    ));
    let listed = untracked::list(&repo).unwrap();
    assert_eq!(
        shown(&listed.top),
        shown(&top),
        "{what}: the top listing\n{}",
        describe(root)
    );
    assert_eq!(listed.top, top, "{what}: the top listing's bytes");
    let mut ours = listed.below(&repo, &roots).unwrap();
    ours.sort();
    assert_eq!(
        shown(&ours),
        shown(&below),
        "{what}: below {roots:?}\n{}",
        describe(root)
    );
    assert_eq!(ours, below, "{what}: below, bytes");
    let files: Vec<Vec<u8>> = untracked::files_named(&repo, ".salve-tmp-")
        .unwrap()
        .iter()
        .map(|p| p.as_os_str().as_bytes().to_vec())
        .collect();
    let (mut files, mut named) = (files, named);
    files.sort();
    named.sort();
    assert_eq!(
        shown(&files),
        shown(&named),
        "{what}: files named .salve-tmp-"
    );
    (listed.in_process(), listed.top.len(), below.len())
}

pub fn fresh_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".config/git")).unwrap();
    std::env::set_var("HOME", home.path());
    std::env::remove_var("XDG_CONFIG_HOME");
    std::env::remove_var("GIT_CONFIG_GLOBAL");
    std::env::set_var("GIT_CONFIG_NOSYSTEM", "1");
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("GIT_") && key != "GIT_CONFIG_NOSYSTEM" {
            std::env::remove_var(key);
        }
    }
    home
}

/// `scripts/bench-untracked.py --short`: the benchmark runs (with the example `cargo test`
/// builds beside this binary), both listings agree, and its table is printed.
#[test]
fn the_listing_benchmark_runs_in_its_short_mode() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let _home = fresh_home();
    let example = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples/untracked_listing");
    if !example.exists() {
        skip::skip(
            "the_listing_benchmark_runs_in_its_short_mode",
            "the example untracked_listing is built by `cargo test -p salve-git` (all targets)",
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench-untracked.py");
    let out = Command::new("python3")
        .arg(script)
        .args(["--short", "--example"])
        .arg(&example)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row = stdout
        .lines()
        .find(|l| l.starts_with("| ") && l.ends_with(" |") && l.contains('x'))
        .unwrap_or_else(|| panic!("no row in {stdout}"));
    assert!(row.split('|').count() == 8, "{row}");
}
