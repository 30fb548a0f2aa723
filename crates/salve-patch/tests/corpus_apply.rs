//! Applier rates over the shared corpus (`../../../shared/corpus/cases`), when present.
//!
//! A dev loop, ignored by default (`cargo test -p salve-patch --test corpus_apply -- --ignored
//! --nocapture`): every reply is extracted and applied to `before/` (with `base/` as the 3-way
//! baseline) the way the engine would, all files or none, and the tree is compared with `after/`.
//! It prints correct / refused / wrong counts by drift class and lists every wrong case, and fails
//! on any wrong apply. `SALVE_CORPUS_FILTER=text` keeps only cases whose id contains `text`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use salve_patch::{
    apply_hunks, create_text, extract, is_placeholder, new_file_from_insertion, replace_whole_3way,
    FileChange,
};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

type Tree = BTreeMap<String, Vec<u8>>;

/// Rungs used by hunks of applied files, for the summary.
static RUNGS: std::sync::Mutex<BTreeMap<String, usize>> = std::sync::Mutex::new(BTreeMap::new());

fn count_rungs(hunks: &[salve_patch::HunkReport]) {
    if let Ok(mut m) = RUNGS.lock() {
        for h in hunks {
            let key = h.rung.map_or(h.status.as_str(), |r| r.as_str()).to_string();
            *m.entry(key).or_default() += 1;
        }
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/cases")
}

fn walk(root: &Path, dir: &Path, out: &mut Tree) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(root, &p, out);
        } else if let (Ok(rel), Ok(data)) = (p.strip_prefix(root), fs::read(&p)) {
            out.insert(rel.to_string_lossy().replace('\\', "/"), data);
        }
    }
}

fn tree(dir: &Path) -> Tree {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn safe(path: &str) -> Option<String> {
    let p = path.trim_start_matches("./");
    if p.starts_with('/') || p.split('/').any(|c| c == ".." || c == ".git") || p.is_empty() {
        return None;
    }
    Some(p.to_string())
}

fn resolve(tree: &Tree, path: &str) -> String {
    if tree.contains_key(path) {
        return path.to_string();
    }
    let hits: Vec<&String> = tree
        .keys()
        .filter(|k| k.ends_with(&format!("/{path}")))
        .collect();
    match hits[..] {
        [one] => one.clone(),
        _ => path.to_string(),
    }
}

/// The tree after applying the reply, or `None` when it is refused.
fn run(reply: &str, before: &Tree, base: &Tree) -> Result<Tree, String> {
    let ex = extract(reply);
    // SALVE_CORPUS_IGNORE_LAZY measures the applier's own placeholder handling on whole-file
    // content the extractor refuses as lazy.
    let ignore_lazy = std::env::var("SALVE_CORPUS_IGNORE_LAZY").is_ok();
    if ex
        .issues
        .iter()
        .any(|i| !(ignore_lazy && i.kind == salve_patch::IssueKind::Lazy))
    {
        return Err(format!("issues: {:?}", ex.issues));
    }
    let mut out = before.clone();
    for e in &ex.edits {
        let path = safe(&e.path).ok_or("unsafe path")?;
        let path = resolve(before, &path);
        let cur = out
            .get(&path)
            .map(|d| String::from_utf8_lossy(d).into_owned());
        let baseline = base
            .get(&path)
            .map(|d| String::from_utf8_lossy(d).into_owned());
        match &e.change {
            FileChange::Modify { hunks } if cur.is_none() => {
                // As the engine does: a start-pinned insertion into a missing file creates it.
                let (content, nl) = new_file_from_insertion(hunks).ok_or("missing file")?;
                out.insert(path, create_text(&content, nl).into_bytes());
            }
            FileChange::Modify { hunks } | FileChange::Rename { hunks, .. } => {
                let cur = cur.ok_or("missing file")?;
                let o = apply_hunks(&cur, hunks, baseline.as_deref());
                if !o.status.is_success() {
                    return Err(format!("{path}: {:?} {:?}", o.status, o.hunks));
                }
                count_rungs(&o.hunks);
                let text = o.new_text.unwrap_or(cur);
                if let FileChange::Rename { to, .. } = &e.change {
                    out.remove(&path);
                    out.insert(safe(to).ok_or("unsafe path")?, text.into_bytes());
                } else {
                    out.insert(path, text.into_bytes());
                }
            }
            FileChange::Create {
                content,
                final_newline,
            } => {
                if cur.is_some() {
                    return Err(format!("{path}: exists"));
                }
                out.insert(path, create_text(content, *final_newline).into_bytes());
            }
            FileChange::Replace {
                content,
                final_newline,
            } => {
                let text = match cur {
                    Some(cur) => {
                        let o = replace_whole_3way(
                            &path,
                            &cur,
                            content,
                            *final_newline,
                            baseline.as_deref(),
                        );
                        if !o.status.is_success() {
                            return Err(format!("{path}: {:?} {:?}", o.status, o.hunks));
                        }
                        o.new_text.unwrap_or(cur)
                    }
                    None => {
                        // As the engine does: a new file has nothing to fill a gap from.
                        if content.lines().any(|l| is_placeholder(l, &path)) {
                            return Err(format!("{path}: placeholder in a new file"));
                        }
                        create_text(content, *final_newline)
                    }
                };
                out.insert(path, text.into_bytes());
            }
            FileChange::Delete { .. } => {
                out.remove(&path).ok_or("missing file")?;
            }
        }
    }
    Ok(out)
}

/// Print the extraction and the difference between the result and `after/`.
fn show(id: &str, reply: &str, res: &Result<Tree, String>, after: &Tree) {
    println!("=== {id}");
    for e in &extract(reply).edits {
        println!("{e:#?}");
    }
    match res {
        Err(e) => println!("refused: {e}"),
        Ok(t) => {
            for (p, data) in t {
                let want = after
                    .get(p)
                    .map(|d| String::from_utf8_lossy(d).into_owned());
                let got = String::from_utf8_lossy(data).into_owned();
                if want.as_deref() != Some(got.as_str()) {
                    let d = salve_patch::unified_diff(p, p, &want.unwrap_or_default(), &got);
                    println!("{d}");
                }
            }
        }
    }
}

#[derive(Default)]
struct Row {
    cases: usize,
    correct: usize,
    refused: usize,
    wrong: usize,
}

#[test]
#[ignore = "dev loop over the shared corpus"]
fn corpus_rates() {
    let dir = corpus_dir();
    let Ok(index) = fs::read_to_string(dir.join("INDEX.tsv")) else {
        eprintln!("no corpus at {}", dir.display());
        return;
    };
    let filter = std::env::var("SALVE_CORPUS_FILTER").unwrap_or_default();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut refused_list = Vec::new();
    let started = std::time::Instant::now();
    for line in index.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [id, _format, drift, expect] = cols[..] else {
            continue;
        };
        if !id.contains(&filter) {
            continue;
        }
        let case = dir.join(id);
        let Ok(reply) = fs::read_to_string(case.join("response.txt")) else {
            continue;
        };
        let before = tree(&case.join("before"));
        let base = if case.join("base").is_dir() {
            tree(&case.join("base"))
        } else {
            before.clone()
        };
        let after = tree(&case.join("after"));
        let res = run(&reply, &before, &base);
        if std::env::var("SALVE_CORPUS_SHOW").is_ok() {
            show(id, &reply, &res, &after);
        }
        let outcome = match (expect, &res) {
            ("apply", Ok(t)) if *t == after => "correct",
            ("apply", Err(_)) => "refused",
            ("refuse", Err(_)) => "correct",
            _ => "wrong",
        };
        match outcome {
            "wrong" => wrong.push(format!("{id} ({drift})")),
            "refused" => refused_list.push(format!(
                "{id} ({drift}): {}",
                res.as_ref()
                    .err()
                    .map_or("", |e| e.as_str())
                    .chars()
                    .take(300)
                    .collect::<String>()
            )),
            _ => {}
        }
        for d in drift.split(',').chain(std::iter::once("ALL")) {
            let r = rows.entry(d.to_string()).or_default();
            r.cases += 1;
            match outcome {
                "correct" => r.correct += 1,
                "refused" => r.refused += 1,
                _ => r.wrong += 1,
            }
        }
    }
    println!(
        "{:<16} {:>6} {:>8} {:>8} {:>6}",
        "drift", "cases", "correct", "refused", "wrong"
    );
    for (d, r) in &rows {
        println!(
            "{:<16} {:>6} {:>8} {:>8} {:>6}",
            d, r.cases, r.correct, r.refused, r.wrong
        );
    }
    println!("elapsed {:?}", started.elapsed());
    if let Ok(m) = RUNGS.lock() {
        println!("hunks placed by rung (successful files): {m:?}");
    }
    if std::env::var("SALVE_CORPUS_VERBOSE").is_ok() {
        for r in &refused_list {
            println!("REFUSED {r}");
        }
    }
    for w in &wrong {
        println!("WRONG {w}");
    }
    assert!(wrong.is_empty(), "{} wrong applies", wrong.len());
}
