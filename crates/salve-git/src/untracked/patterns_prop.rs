//! Property test: random ignore patterns (the glob alphabet, escapes, slashes, negations,
//! trailing slashes and spaces) decide every path of a fixed tree as `git check-ignore`
//! decides it. Seeded: `SALVE_PROP_SEED` picks the seed, `SALVE_PROP_PATTERNS` how many
//! pattern files; both are printed.

// Tests panic on purpose when something is off.
#![allow(clippy::unwrap_used)]

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use super::patterns::{List, Stack};

const DIRS: &[&str] = &["a", "a/b", "a/b/c", "x.d", "ab", "[", "a/-", "b"];
const FILES: &[&str] = &[
    "a.txt",
    "a/b.c",
    "a/b/c/d",
    "a/b/c/ab",
    "x.d/a",
    "x.d/.a",
    "ab/c",
    "[/a",
    "[/]",
    "a/-/x",
    "b/a",
    "b/b",
    "!a",
    "\\a",
    "a b",
    "a ",
    "*",
    "?",
    "a*b",
    "b/ab.c",
    "c",
    "a/b/c/a.txt",
];
const ALPHABET: &[u8] = b"aaabbc**?[]!-\\//. ^";

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn pattern(rng: &mut Rng) -> Vec<u8> {
    let mut p = Vec::new();
    if rng.below(5) == 0 {
        p.push(b'!');
    }
    for _ in 0..1 + rng.below(7) {
        p.push(ALPHABET[rng.below(ALPHABET.len())]);
    }
    if rng.below(5) == 0 {
        p.push(b'/');
    }
    p
}

fn git(root: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", root)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    // check-ignore exits 1 when it ignores nothing.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What check-ignore says: a leading directory excluded, or the path itself.
fn ours(lists: &[List], path: &str) -> bool {
    let bytes = path.as_bytes();
    let applicable = |at: &[u8]| Stack {
        outer: Vec::new(),
        dirs: lists
            .iter()
            .filter(|l| at.starts_with(l.base()))
            .map(List::clone_list)
            .collect(),
    };
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'/' && applicable(&bytes[..i]).excluded(&bytes[..i], true) {
            return true;
        }
    }
    applicable(bytes).excluded(bytes, DIRS.contains(&path))
}

#[test]
fn random_patterns_decide_paths_as_git_check_ignore_does() {
    let seed = std::env::var("SALVE_PROP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2512_u64)
        .max(1);
    let files: usize = std::env::var("SALVE_PROP_PATTERNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    eprintln!("patterns_prop seed {seed} (SALVE_PROP_SEED), {files} files (SALVE_PROP_PATTERNS)");
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    git(root, &["init", "-q"], b"");
    for dir in DIRS {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for file in FILES {
        std::fs::write(root.join(file), b"").unwrap();
    }
    let paths: Vec<&str> = DIRS.iter().chain(FILES).copied().collect();
    let input: Vec<u8> = paths
        .iter()
        .flat_map(|p| [p.as_bytes(), b"\0"].concat())
        .collect();
    let mut rng = Rng(seed);
    let mut decided = 0;
    for case in 0..files {
        let (root_text, sub_text): (Vec<u8>, Vec<u8>) = (
            (0..rng.below(3))
                .flat_map(|_| [pattern(&mut rng), b"\n".to_vec()].concat())
                .collect(),
            (0..rng.below(3))
                .flat_map(|_| [pattern(&mut rng), b"\n".to_vec()].concat())
                .collect(),
        );
        let (Ok(top), Ok(sub)) = (List::parse(b"", &root_text), List::parse(b"a/", &sub_text))
        else {
            continue;
        };
        std::fs::write(root.join(".gitignore"), &root_text).unwrap();
        std::fs::write(root.join("a/.gitignore"), &sub_text).unwrap();
        let out = git(
            root,
            &["check-ignore", "--no-index", "-z", "-v", "-n", "--stdin"],
            &input,
        );
        let fields: Vec<&[u8]> = out.split(|b| *b == 0).collect();
        let lists = [top, sub];
        for record in fields.chunks(4).filter(|c| c.len() == 4) {
            let path = String::from_utf8_lossy(record[3]).into_owned();
            let theirs = !record[2].is_empty() && record[2][0] != b'!';
            assert_eq!(
                ours(&lists, &path),
                theirs,
                "case {case}: {path:?} under .gitignore {:?} and a/.gitignore {:?}",
                String::from_utf8_lossy(&root_text),
                String::from_utf8_lossy(&sub_text)
            );
            decided += 1;
        }
    }
    eprintln!("patterns_prop: {decided} decisions agree");
    assert!(decided > files * paths.len() / 2);
}
