//! Where the generator's files come from: texts nobody here chose.
//!
//! - Crate sources in the cargo registry (`$CARGO_HOME/registry/src/*/*/`): many languages and
//!   styles. A run picks crates and files by its seed from the sorted listing, so a seed names
//!   the same files on every machine with the same registry.
//! - This repository's history: real before/after pairs from `git log`, the edits people made.
//!
//! When the registry is empty (a fresh machine), the repository's own files stand in, and the run
//! says so on stderr. Binary, huge, CRLF and edit-syntax-holding files are skipped: the first
//! three are covered by drifts, the last cannot be quoted in a reply unambiguously.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::rng::Rng;

const EXTS: &[&str] = &[
    "rs", "c", "h", "cc", "cpp", "hpp", "toml", "md", "py", "js", "ts", "go", "java", "sh", "yml",
    "yaml", "txt", "json", "html", "css", "rb",
];
/// Files larger than this are skipped: the debug-built applier is slow on big files and the CI
/// run must stay short.
const MAX_BYTES: u64 = 24_000;
const MIN_LINES: usize = 15;

/// A file's text as the model read it: LF endings, a final newline.
pub struct Text {
    pub path: String,
    pub text: String,
}

/// A real edit from history.
pub struct Pair {
    pub path: String,
    pub before: String,
    pub after: String,
}

pub struct Pool {
    /// (path shown in the reply, file on disk)
    files: Vec<(String, PathBuf)>,
    pub pairs: Vec<Pair>,
    pub origin: String,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn registry() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    Some(home.join("registry/src"))
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>, cap: usize) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if out.len() >= cap {
            return;
        }
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if p.is_dir() {
            walk(root, &p, out, cap);
            continue;
        }
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        let size = p.metadata().map(|m| m.len()).unwrap_or(0);
        if !EXTS.contains(&ext) || !(300..=MAX_BYTES).contains(&size) {
            continue;
        }
        if let Ok(rel) = p.strip_prefix(root) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if rel.bytes().all(|b| b.is_ascii_graphic()) {
                out.push((rel, p.clone()));
            }
        }
    }
}

/// A line a reply could not quote without being read as edit syntax or as the end of its
/// wrapper.
fn is_syntax(line: &str) -> bool {
    let t = line.trim();
    const STARTS: &[&str] = &[
        "<<<",
        "===",
        ">>>",
        "*** ",
        "+++",
        "---",
        "@@",
        "```",
        "~~~",
        "diff --git",
        "\\ No",
    ];
    const TAGS: &[&str] = &[
        "<diff>",
        "</diff>",
        "<content>",
        "</content>",
        "<path>",
        "</path>",
        "apply_diff>",
        "replace_in_file>",
        "write_to_file>",
        "<source>",
        "</source>",
        "<code>",
        "</code>",
        "<pre>",
        "</pre>",
        "SEARCH",
        "REPLACE",
        "<<<AI_DIFF",
    ];
    STARTS.iter().any(|s| t.starts_with(s)) || TAGS.iter().any(|s| line.contains(s))
}

/// The text of a file fit for the generator, or `None`.
pub fn usable(raw: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(raw).ok()?;
    if text.contains(['\r', '\0', '\u{feff}']) || text.lines().any(is_syntax) {
        return None;
    }
    let mut text = text.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    (text.lines().count() >= MIN_LINES).then_some(text)
}

fn git(args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo_root())
        .args(args)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// Up to `want` before/after pairs from this repository's history, picked by `rng`.
fn history(rng: &mut Rng, want: usize) -> Vec<Pair> {
    let Some(log) = git(&["log", "--no-merges", "--format=%H", "-n", "600"]) else {
        return Vec::new();
    };
    let commits: Vec<String> = String::from_utf8_lossy(&log)
        .lines()
        .map(str::to_string)
        .collect();
    let mut pairs = Vec::new();
    for _ in 0..want * 3 {
        if pairs.len() >= want || commits.len() < 2 {
            break;
        }
        let c = rng.pick(&commits);
        let Some(stat) = git(&["diff-tree", "--no-commit-id", "-r", "--numstat", c]) else {
            continue;
        };
        let stat = String::from_utf8_lossy(&stat).into_owned();
        let files: Vec<&str> = stat
            .lines()
            .filter_map(|l| {
                let mut it = l.split('\t');
                let (add, del, path) = (it.next()?, it.next()?, it.next()?);
                let small = add.parse::<usize>().ok()? + del.parse::<usize>().ok()? <= 80;
                let ext = path.rsplit('.').next().unwrap_or("");
                (small && EXTS.contains(&ext)).then_some(path)
            })
            .collect();
        if files.is_empty() {
            continue;
        }
        let path = *rng.pick(&files);
        let before = git(&["show", &format!("{c}^:{path}")]).and_then(|b| usable(&b));
        let after = git(&["show", &format!("{c}:{path}")]).and_then(|b| usable(&b));
        if let (Some(before), Some(after)) = (before, after) {
            if before != after && before.len() as u64 <= MAX_BYTES * 3 {
                pairs.push(Pair {
                    path: path.to_string(),
                    before,
                    after,
                });
            }
        }
    }
    pairs
}

impl Pool {
    /// Files from `crates` registry crates picked by `rng` (the repository's own files when
    /// there are none) and `pairs` history pairs.
    pub fn gather(rng: &mut Rng, crates: usize, pairs: usize) -> Pool {
        let mut dirs: Vec<PathBuf> = registry()
            .map(|r| {
                sorted_dirs(&r)
                    .iter()
                    .flat_map(|d| sorted_dirs(d))
                    .collect()
            })
            .unwrap_or_default();
        dirs.sort();
        let mut files = Vec::new();
        for _ in 0..crates.min(dirs.len()) {
            let d = dirs.swap_remove(rng.below(dirs.len()));
            let name = d.file_name().map(|n| n.to_string_lossy().into_owned());
            let mut found = Vec::new();
            walk(&d, &d, &mut found, 400);
            // A crate's files show under its name, as in a workspace of vendored crates.
            let name = name.unwrap_or_default();
            files.extend(
                found
                    .into_iter()
                    .map(|(rel, p)| (format!("{name}/{rel}"), p)),
            );
        }
        let mut origin = format!("{} files from {crates} registry crates", files.len());
        if files.is_empty() {
            let root = repo_root();
            walk(&root, &root.join("crates"), &mut files, 5000);
            origin = format!(
                "{} files of this repository (no crate sources in the cargo registry)",
                files.len()
            );
            eprintln!("generated: no crate sources found in the cargo registry; using this repository's own files");
        }
        let pairs = history(rng, pairs);
        if pairs.is_empty() {
            eprintln!("generated: no usable git history found; only synthetic edits");
        }
        let origin = format!("{origin}, {} history pairs", pairs.len());
        Pool {
            files,
            pairs,
            origin,
        }
    }

    /// A usable file picked by `rng`, or `None` after a few misses.
    pub fn file(&self, rng: &mut Rng) -> Option<Text> {
        for _ in 0..20 {
            let (path, disk) = self.files.get(rng.below(self.files.len()))?;
            if let Some(text) = std::fs::read(disk).ok().and_then(|b| usable(&b)) {
                return Some(Text {
                    path: path.clone(),
                    text,
                });
            }
        }
        None
    }
}
