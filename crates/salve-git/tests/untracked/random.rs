//! Random work trees, listed in process and by git.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use super::{assert_same_as_git, fresh_home, git, ENV};

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
