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

/// The process environment is shared: one test at a time changes it.
static ENV: Mutex<()> = Mutex::new(());

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const DIRS: &[&str] = &[
    "a", "b", "sub", "build", "d e", "x.d", "ign", "keep", "node_x", "A",
];
const FILES: &[&[u8]] = &[
    b"f.txt",
    b"g.log",
    b"keep.log",
    b"h.o",
    b"h.a",
    b"#hash",
    b"!bang",
    b"x",
    b"y.md",
    b"trail ",
    b".hidden",
    b"Z.LOG",
    b"b",
    b"a*b",
    b".salve-tmp-1",
    b"\xff\xfe.bin",
    b"f.txt~",
];
const PATTERNS: &[&str] = &[
    "*.log",
    "!keep.log",
    "build/",
    "/x",
    "x",
    "sub/**",
    "**/h.o",
    "a/**/f.txt",
    "\\#hash",
    "\\!bang",
    "#hash",
    "trail\\ ",
    "trail",
    "y.md   ",
    "*.[oa]",
    "[!a-c]*.txt",
    "?.md",
    "d*/",
    "**",
    "*",
    "!*/",
    "!d e/",
    "!/x",
    "ign",
    "/sub/",
    "a/b",
    "b/**/x",
    "node*",
    "*.LOG",
    "a**",
    "**/",
    "x.d/f.txt",
    "!*.txt",
    "*/f.txt",
    "/*/g.log",
    "\\*",
    "a\\*b",
    "keep/",
    "!keep/**",
    "!ign/",
    ".hidden",
    "*~",
    "a/**",
    "**/sub/",
    "[a-c]/",
    "f.t?t",
    "!",
    "/",
    "b/",
    "\\",
    "A/*",
    "*.salve-tmp-*",
    "**/x/**",
    "*/",
    "a/*/",
    "[]a]*",
    "[a-]x",
    "[\\]]*",
    "***",
    "a/**b",
    "**a",
    "/**/f.txt",
    "sub/**/",
    "x/",
    "!x/",
    "**/*.log",
    "a/b/",
    "/a/*",
    "*.t[x]t",
    "d\\ e/",
    "f.txt/",
    "\\!keep.log",
    " ",
    "x\t",
    "a/b/**/",
    "x.d/",
    "**/b/**/x",
    "[^a]",
    "ke?p/",
    "b/a",
    "!b/a",
    "*/*/",
    "!**/",
    "A",
];

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
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

fn ignore_text(rng: &mut Rng) -> Vec<u8> {
    let mut text = Vec::new();
    if rng.chance(5) {
        text.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for _ in 0..1 + rng.below(5) {
        text.extend_from_slice(rng.pick(PATTERNS).as_bytes());
        text.extend_from_slice(if rng.chance(10) { b"\r\n" } else { b"\n" });
    }
    if rng.chance(20) {
        text.pop();
    }
    text
}

/// A random work tree in a fresh repository under `home`, with random global ignores.
fn random_tree(rng: &mut Rng, home: &Path, n: usize) -> PathBuf {
    let root = home.join(format!("t{n}"));
    std::fs::create_dir(&root).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    let mut dirs = vec![PathBuf::new()];
    for _ in 0..rng.below(9) {
        let parent = rng.pick(&dirs).clone();
        if parent.components().count() >= 3 {
            continue;
        }
        let dir = parent.join(rng.pick(DIRS));
        std::fs::create_dir_all(root.join(&dir)).unwrap();
        dirs.push(dir);
    }
    let mut files = Vec::new();
    for _ in 0..rng.below(14) {
        let dir = rng.pick(&dirs).clone();
        let name = std::ffi::OsStr::from_bytes(FILES[rng.below(FILES.len())]);
        let file = dir.join(name);
        if root.join(&file).is_dir() {
            continue;
        }
        std::fs::write(root.join(&file), b"x\n").unwrap();
        files.push(file);
    }
    for dir in dirs.clone() {
        if rng.chance(35) {
            std::fs::write(root.join(&dir).join(".gitignore"), ignore_text(rng)).unwrap();
        }
    }
    if rng.chance(40) {
        std::fs::write(root.join(".git/info/exclude"), ignore_text(rng)).unwrap();
    }
    let config_dir = home.join(".config/git");
    let _ = std::fs::remove_file(config_dir.join("ignore"));
    let _ = std::fs::remove_file(home.join(".gitconfig"));
    match rng.below(3) {
        0 => std::fs::write(config_dir.join("ignore"), ignore_text(rng)).unwrap(),
        1 => {
            std::fs::write(home.join("my-ignore"), ignore_text(rng)).unwrap();
            let path = if rng.chance(50) {
                "~/my-ignore".to_owned()
            } else {
                home.join("my-ignore").display().to_string()
            };
            std::fs::write(
                home.join(".gitconfig"),
                format!("[core]\n\texcludesFile = {path}\n"),
            )
            .unwrap();
        }
        _ => {}
    }
    // Tracked files, some of them ignored (added with force).
    let tracked: Vec<&PathBuf> = files.iter().filter(|_| rng.chance(40)).collect();
    if !tracked.is_empty() {
        let mut args = vec!["add", "-f", "--"];
        let names: Vec<String> = tracked
            .iter()
            .map(|p| format!(":(literal){}", p.to_string_lossy()))
            .collect();
        // Non-UTF-8 names cannot go through a String; leave those untracked.
        args.extend(
            names
                .iter()
                .zip(&tracked)
                .filter(|(_, p)| p.to_str().is_some())
                .map(|(n, _)| n.as_str()),
        );
        if args.len() > 3 {
            git(&root, &args);
        }
        if rng.chance(50) {
            git(&root, &["commit", "-q", "--allow-empty", "-m", "c"]);
        }
    }
    extras(rng, &root, &dirs);
    root
}

/// Empty directories, nested repositories, symlinks, a tracked file turned into a directory.
fn extras(rng: &mut Rng, root: &Path, dirs: &[PathBuf]) {
    if rng.chance(20) {
        let file = rng.pick(dirs).join("became-dir");
        if !root.join(&file).exists() {
            std::fs::write(root.join(&file), b"t\n").unwrap();
            let spec = format!(":(literal){}", file.display());
            git(root, &["add", "-f", "--", &spec]);
            std::fs::remove_file(root.join(&file)).unwrap();
            std::fs::create_dir(root.join(&file)).unwrap();
            std::fs::write(root.join(&file).join("f.txt"), b"u\n").unwrap();
        }
    }
    if rng.chance(30) {
        let dir = rng.pick(dirs).join("empty");
        let _ = std::fs::create_dir_all(root.join(dir).join("deeper"));
    }
    if rng.chance(25) {
        let dir = root.join(rng.pick(dirs)).join("nested");
        if std::fs::create_dir_all(&dir).is_ok() {
            git(&dir, &["init", "-q"]);
            if rng.chance(50) {
                std::fs::write(dir.join("inner.txt"), b"i\n").unwrap();
            }
        }
    }
    if rng.chance(25) {
        let link = root.join(rng.pick(dirs)).join("to-dir");
        let _ = std::os::unix::fs::symlink(".", link);
    }
    if rng.chance(25) {
        let link = root.join(rng.pick(dirs)).join("to-file.log");
        let _ = std::os::unix::fs::symlink("missing", link);
    }
}

/// The listing in process (when it did not fall back) and through `list` equal git's.
/// Whether it was listed in process, and how many records the two listings held.
fn assert_same_as_git(root: &Path, what: &str) -> (bool, usize, usize) {
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

fn fresh_home() -> tempfile::TempDir {
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

#[test]
fn random_work_trees_list_as_git_lists_them() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let seed = std::env::var("SALVE_PROP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2512_u64);
    let trees = std::env::var("SALVE_PROP_TREES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_usize);
    eprintln!("untracked listing: seed {seed} (SALVE_PROP_SEED), {trees} trees (SALVE_PROP_TREES)");
    let home = fresh_home();
    let mut rng = Rng(seed);
    let (mut modelled, mut top, mut below) = (0, 0, 0);
    for n in 0..trees {
        let root = random_tree(&mut rng, home.path(), n);
        let (inside, on_top, under) = assert_same_as_git(&root, &format!("seed {seed} tree {n}"));
        modelled += usize::from(inside);
        top += on_top;
        below += under;
        std::fs::remove_dir_all(&root).unwrap();
    }
    eprintln!(
        "untracked listing: {modelled} of {trees} trees listed in process; {top} records on \
         top, {below} below collapsed directories"
    );
    // Most trees must take the in-process path, or this test proves little.
    assert!(
        modelled * 3 >= trees * 2,
        "{modelled} of {trees} in process"
    );
}

/// A small repository for one fallback trigger: tracked, untracked and ignored files and an
/// untracked directory.
fn small_tree(home: &Path) -> PathBuf {
    let root = home.join("tree");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("new/deep")).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(root.join("src/a.txt"), "a\n").unwrap();
    std::fs::write(root.join("src/b.txt"), "b\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "c"]);
    std::fs::write(root.join("src/c.txt"), "c\n").unwrap();
    std::fs::write(root.join("src/x.log"), "x\n").unwrap();
    std::fs::write(root.join("new/deep/d.txt"), "d\n").unwrap();
    root
}

/// `set_up` changes the tree (or the environment); the listing must then come from git, and
/// equal git's.
fn falls_back(set_up: impl FnOnce(&Path, &Path)) {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = small_tree(home.path());
    let (inside, _, _) = assert_same_as_git(&root, "before");
    assert!(inside, "the plain tree is listed in process");
    let root = {
        let other = home.path().join("tree2");
        std::fs::rename(&root, &other).unwrap();
        other
    };
    set_up(&root, home.path());
    let repo = Repo::discover(&root).unwrap();
    assert!(
        untracked::in_process(&repo).unwrap().is_none(),
        "falls back"
    );
    let (inside, top, _) = assert_same_as_git(&root, "after");
    assert!(!inside && top > 0);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GIT_TEST") {
            std::env::remove_var(key);
        }
    }
}

#[test]
fn an_unknown_git_variable_falls_back() {
    falls_back(|_, _| std::env::set_var("GIT_TEST_UNTRACKED_CACHE", "1"));
}

#[test]
fn an_excludes_file_in_the_repository_config_falls_back() {
    falls_back(|root, home| {
        std::fs::write(home.join("local-ignore"), "c.txt\n").unwrap();
        let value = home.join("local-ignore").display().to_string();
        git(root, &["config", "core.excludesFile", &value]);
    });
}

#[test]
fn an_include_in_the_global_config_falls_back() {
    falls_back(|_, home| {
        std::fs::write(home.join("more.cfg"), "[core]\n\texcludesFile = ~/g\n").unwrap();
        std::fs::write(home.join("g"), "c.txt\n").unwrap();
        std::fs::write(home.join(".gitconfig"), "[include]\n\tpath = ~/more.cfg\n").unwrap();
    });
}

#[test]
fn ignore_case_falls_back() {
    falls_back(|root, _| {
        git(root, &["config", "core.ignoreCase", "true"]);
    });
}

#[test]
fn a_skip_worktree_entry_falls_back() {
    falls_back(|root, _| {
        git(root, &["update-index", "--skip-worktree", "src/a.txt"]);
    });
}

#[test]
fn a_sparse_checkout_falls_back() {
    falls_back(|root, _| {
        git(root, &["sparse-checkout", "set", "--no-cone", "/src/"]);
    });
}

#[test]
fn a_split_index_falls_back() {
    falls_back(|root, _| {
        git(root, &["update-index", "--split-index"]);
    });
}

#[test]
fn a_submodule_falls_back() {
    falls_back(|root, _| {
        let id = String::from_utf8(git(root, &["rev-parse", "HEAD"])).unwrap();
        let info = format!("160000,{},sub", id.trim());
        git(root, &["update-index", "--add", "--cacheinfo", &info]);
    });
}

#[test]
fn a_linked_worktree_falls_back() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = small_tree(home.path());
    git(&root, &["worktree", "add", "-q", "../linked"]);
    let linked = root.with_file_name("linked");
    std::fs::write(linked.join("new.txt"), "n\n").unwrap();
    let repo = Repo::discover(&linked).unwrap();
    assert!(untracked::in_process(&repo).unwrap().is_none());
    let (inside, top, _) = assert_same_as_git(&linked, "linked worktree");
    assert!(!inside && top == 1);
}

#[test]
fn a_symlinked_gitignore_falls_back() {
    falls_back(|root, _| {
        std::fs::write(root.join("new/rules"), "*.txt\n").unwrap();
        std::os::unix::fs::symlink("rules", root.join("new/.gitignore")).unwrap();
    });
}

#[test]
fn a_named_character_class_falls_back() {
    falls_back(|root, _| {
        std::fs::write(root.join("src/.gitignore"), "[[:digit:]]*\n").unwrap();
    });
}

#[test]
fn a_gitfile_below_the_root_falls_back() {
    falls_back(|root, _| {
        std::fs::write(root.join("new/.git"), "gitdir: /nowhere\n").unwrap();
    });
}

#[test]
fn scrubbed_variables_and_index_version_4_stay_in_process() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let home = fresh_home();
    let root = small_tree(home.path());
    git(&root, &["update-index", "--index-version", "4"]);
    std::env::set_var("GIT_DIR", "/nowhere");
    std::env::set_var("GIT_INDEX_FILE", "/nowhere/index");
    let (inside, top, below) = assert_same_as_git(&root, "index v4 with GIT_DIR set");
    std::env::remove_var("GIT_DIR");
    std::env::remove_var("GIT_INDEX_FILE");
    assert!(inside && top == 2 && below == 1, "{top} {below}");
}
