//! Damaged replies, as a property (DESIGN.md §3.3): every scenario reply that applies is
//! damaged the way real replies are, and salve either refuses it or writes exactly what the
//! undamaged reply writes. Where the damage is content as its format marks it (a marker line
//! on a diff's `+` line, in a JSON string), the reply must write it as asked: the undamaged
//! result plus that one line.
//!
//! Damages: a fence opener duplicated; a marker line inserted where its format reads it as
//! syntax (inside a REPLACE section, unprefixed among a hunk's lines) or as content (a `+` line,
//! a JSON string).
//!
//! `SALVE_DAMAGE_CASES` sets the number of cases (default 2000), `SALVE_DAMAGE_SEED` the seed
//! (default 23; logged, so a failure can be replayed).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use salve_engine::apply::{apply, Options};
use salve_patch::Outcome;

type Tree = BTreeMap<String, Vec<u8>>;

/// Marker lines of the formats salve reads.
const MARKERS: &[&str] = &[
    "<<<<<<< SEARCH",
    ">>>>>>> REPLACE",
    "=======",
    ":start_line:1",
    "*** Begin Patch",
    "diff --git a/x b/x",
    "------- SEARCH",
];

/// A small seeded generator (xorshift), so a case is reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/scenarios")
}

fn read_tree(root: &Path) -> Tree {
    let mut out = Tree::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn write_tree(root: &Path, tree: &Tree) {
    for (p, bytes) in tree {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// Apply `reply` to a fresh copy of `before`: the tree after, and whether it was written.
fn run(before: &Tree, reply: &str) -> (Tree, bool) {
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), before);
    let mut options = Options::new(dir.path());
    options.checkpoint = false;
    options.record = false;
    let out = apply(reply, &options).unwrap();
    let written = matches!(
        out.report.outcome,
        Outcome::Applied | Outcome::AlreadyApplied
    );
    (read_tree(dir.path()), written)
}

/// A scenario whose reply applies with no repository around it.
struct Case {
    name: String,
    before: Tree,
    reply: String,
    after: Tree,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("reply.txt").is_file() && p.join("after").is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        if ["base", "args.txt", "symlinks.txt"]
            .iter()
            .any(|x| d.join(x).exists())
        {
            continue;
        }
        let Ok(reply) = std::fs::read_to_string(d.join("reply.txt")) else {
            continue;
        };
        if reply.contains("{OUTSIDE}") {
            continue;
        }
        let before = if d.join("before").is_dir() {
            read_tree(&d.join("before"))
        } else {
            Tree::new()
        };
        let want = read_tree(&d.join("after"));
        let (got, written) = run(&before, &reply);
        // Some scenarios need the repository's baseline or a check: left out here.
        if written && got == want && got != before {
            out.push(Case {
                name: d.file_name().unwrap().to_string_lossy().into_owned(),
                before,
                reply,
                after: want,
            });
        }
    }
    out
}

/// How the reply was damaged, and what it may then write.
enum Damage {
    /// Syntax damage: refuse, or write what the undamaged reply writes.
    Syntax(String),
    /// Content damage: write the undamaged result plus the line `marker`.
    Content(String, &'static str),
}

fn lines_of(reply: &str) -> Vec<&str> {
    reply.split_inclusive('\n').collect()
}

fn insert_at(reply: &str, at: usize, line: &str) -> String {
    let mut ls: Vec<String> = lines_of(reply).iter().map(|l| (*l).to_owned()).collect();
    let ending = if reply.contains("\r\n") { "\r\n" } else { "\n" };
    ls.insert(at.min(ls.len()), format!("{line}{ending}"));
    ls.concat()
}

/// A fence opener with an info string: a bare fence line may as well be a closer, or a line
/// of a Markdown file's content inside a longer fence.
fn is_fence(l: &str) -> bool {
    let t = l.trim();
    let info = t.trim_start_matches(['`', '~']);
    (t.starts_with("```") || t.starts_with("~~~")) && !info.is_empty() || t.starts_with("<source")
}

/// The lines of REPLACE sections (after a divider, up to the close).
fn replace_lines(ls: &[&str]) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut inside, mut search) = (false, false);
    for (k, l) in ls.iter().enumerate() {
        let t = l.trim();
        if t.ends_with("SEARCH") {
            search = true;
        } else if search && t.starts_with("=======") && t.chars().all(|c| c == '=') {
            search = false;
            inside = true;
            out.push(k + 1);
        } else if inside && (t.ends_with("REPLACE") || t.starts_with(">>>>>>>")) {
            inside = false;
            out.push(k);
        } else if inside {
            out.push(k + 1);
        }
    }
    out
}

/// Lines inside diff hunks (after an `@@` line, while lines carry a diff prefix).
fn hunk_lines(ls: &[&str]) -> (Vec<usize>, Vec<usize>) {
    let (mut any, mut plus) = (Vec::new(), Vec::new());
    let mut inside = false;
    for (k, l) in ls.iter().enumerate() {
        if l.starts_with("@@") {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        match l.as_bytes().first() {
            Some(b'+') if !l.starts_with("+++") => {
                any.push(k);
                plus.push(k);
            }
            Some(b'-' | b' ') if !l.starts_with("---") => any.push(k),
            _ => inside = false,
        }
    }
    (any, plus)
}

fn damage(reply: &str, rng: &mut Rng) -> Option<Damage> {
    let ls = lines_of(reply);
    let marker = MARKERS[rng.below(MARKERS.len())];
    let content_marker = ["<<<<<<< SEARCH", ">>>>>>> REPLACE", "*** Begin Patch"][rng.below(3)];
    let mut options: Vec<u8> = Vec::new();
    let fences: Vec<usize> = (0..ls.len()).filter(|&k| is_fence(ls[k])).collect();
    let replaces = replace_lines(&ls);
    let (hunk, plus) = hunk_lines(&ls);
    let json_new = reply.find("\"new_string\": \"");
    if !fences.is_empty() {
        options.push(0);
    }
    if !replaces.is_empty() {
        options.push(1);
    }
    if !hunk.is_empty() {
        options.push(2);
    }
    if !plus.is_empty() {
        options.push(3);
    }
    if json_new.is_some() {
        options.push(4);
    }
    match *options.get(rng.below(options.len()))? {
        0 => {
            let k = fences[rng.below(fences.len())];
            Some(Damage::Syntax(insert_at(
                reply,
                k,
                ls[k].trim_end_matches(['\r', '\n']),
            )))
        }
        1 => {
            let k = replaces[rng.below(replaces.len())];
            Some(Damage::Syntax(insert_at(reply, k, marker)))
        }
        2 => {
            let k = hunk[rng.below(hunk.len())];
            Some(Damage::Syntax(insert_at(reply, k, marker)))
        }
        3 => {
            let k = plus[rng.below(plus.len())];
            Some(Damage::Content(
                insert_at(reply, k + 1, &format!("+{content_marker}")),
                content_marker,
            ))
        }
        _ => {
            let at = json_new? + "\"new_string\": \"".len();
            let mut s = reply.to_owned();
            s.insert_str(at, &format!("{content_marker}\\n"));
            Some(Damage::Content(s, content_marker))
        }
    }
}

/// Whether `got` is `want` with one line `line` added to one file.
fn plus_one_line(got: &Tree, want: &Tree, line: &str) -> bool {
    if got.keys().ne(want.keys()) {
        return false;
    }
    let differing: Vec<&String> = got.keys().filter(|k| got[*k] != want[*k]).collect();
    let [path] = differing[..] else {
        return false;
    };
    let g = String::from_utf8_lossy(&got[path]).into_owned();
    let w = String::from_utf8_lossy(&want[path]).into_owned();
    // Lines without their endings: the added line may take the final newline's place.
    let gl: Vec<&str> = g.lines().collect();
    let wl: Vec<&str> = w.lines().collect();
    if gl.len() != wl.len() + 1 {
        return false;
    }
    let k = (0..wl.len()).find(|&k| gl[k] != wl[k]).unwrap_or(wl.len());
    gl[k].trim_end() == line && gl[..k] == wl[..k] && gl[k + 1..] == wl[k..]
}

#[test]
fn damaged_replies_are_refused_or_write_what_the_reply_meant() {
    let count: usize = std::env::var("SALVE_DAMAGE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let seed: u64 = std::env::var("SALVE_DAMAGE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(23);
    eprintln!("damaged replies: seed {seed}, {count} cases");
    let cases = cases();
    assert!(cases.len() > 100, "only {} scenarios apply", cases.len());
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (mut ran, mut refused, mut content_written) = (0, 0, 0);
    let mut wrong = Vec::new();
    for i in 0..count {
        let case = &cases[rng.below(cases.len())];
        let Some(d) = damage(&case.reply, &mut rng) else {
            continue;
        };
        ran += 1;
        let (reply, content) = match &d {
            Damage::Syntax(r) => (r, None),
            Damage::Content(r, m) => (r, Some(*m)),
        };
        let (got, written) = run(&case.before, reply);
        let ok = if !written {
            refused += 1;
            got == case.before
        } else {
            match content {
                None => got == case.after,
                Some(m) => {
                    content_written += 1;
                    plus_one_line(&got, &case.after, m)
                }
            }
        };
        if !ok {
            let shown: Vec<String> = got
                .iter()
                .filter(|(k, v)| case.after.get(*k) != Some(*v))
                .map(|(k, v)| format!("{k}: {:?}", String::from_utf8_lossy(v)))
                .collect();
            wrong.push(format!(
                "case {i} ({}), written {written}:\n{reply}\n=> {}",
                case.name,
                shown.join("\n")
            ));
        }
    }
    eprintln!(
        "damaged replies: {ran} run, {refused} refused, {content_written} content damages written, {} wrong",
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "seed {seed}: {} wrong of {ran}:\n\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
