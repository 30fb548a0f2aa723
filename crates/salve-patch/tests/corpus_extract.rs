//! Extraction over the shared corpus (`../../../shared/corpus` from this crate), when present.
//!
//! For every case the reply is extracted and compared with what the case says:
//! - expect=apply: the set of extracted paths equals the set of paths that differ between
//!   `before/` and `after/` (for an already-applied case, where nothing differs, the files of
//!   `before/`), and no issue is raised;
//! - drift `truncated`: a `Truncated` issue is raised;
//! - drifts that change only how the edit is written ([`EXACT_DRIFTS`]): every Modify hunk's
//!   pre-image is found in `base/` (or `before/`) and its post-image in `after/`, line for line
//!   (a hunk's `maybe_added` lines may be read as added), created and replaced content equals
//!   `after/`, deleted files are gone: this checks the hunk bodies themselves.
//!
//! Mismatches are printed. The extractor reaches zero mismatches on the published corpus, so the
//! test fails on any. The whole-file `elide` cases (content with `// ...` placeholders) are
//! refused as lazy on purpose and counted apart.

use salve_patch::{extract, FileChange, Hunk, IssueKind};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[path = "../../../tests/support/skip.rs"]
mod skip;

/// Drift classes after which extracted hunks must match the case's files exactly: they change
/// only how the edit is written (or the file's line endings), never the text of its lines.
const EXACT_DRIFTS: &[&str] = &[
    "clean",
    "blankctx",
    "counts",
    "nonums",
    "offset",
    "reorder",
    "dropctx",
    "crlf_file",
    "nonl",
    "missing_plus",
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/cases")
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
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

fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn text_lines(data: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(data)
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect()
}

fn contains_seq(hay: &[String], needle: &[&str]) -> bool {
    needle.is_empty()
        || hay
            .windows(needle.len())
            .any(|w| w.iter().zip(needle).all(|(a, b)| a == b))
}

/// The hunk with its `maybe_added` lines read as added lines (prefix + text).
fn with_maybe_added(h: &Hunk) -> Hunk {
    let mut h = h.clone();
    for &k in &h.maybe_added.clone() {
        if let Some(l) = h.lines.get_mut(k) {
            let prefix = if l.kind == salve_patch::LineKind::Remove {
                '-'
            } else {
                ' '
            };
            l.kind = salve_patch::LineKind::Add;
            l.text = format!("{prefix}{}", l.text);
        }
    }
    h
}

fn hunk_found(h: &Hunk, old: &[String], new: &[String]) -> bool {
    let pre: Vec<&str> = h.pre_image().collect();
    let post: Vec<&str> = h.post_image().collect();
    contains_seq(old, &pre) && contains_seq(new, &post)
}

#[test]
fn corpus_extraction() {
    let dir = corpus_dir();
    let Ok(index) = fs::read_to_string(dir.join("INDEX.tsv")) else {
        skip::skip(
            "corpus_extraction",
            &format!("the corpus is not at {}", dir.display()),
        );
        return;
    };
    let mut cases = 0;
    let mut path_mismatch = Vec::new();
    let mut apply_issues = Vec::new();
    let mut lazy_whole_file = 0;
    let mut missed_trunc = Vec::new();
    let mut bad_clean = Vec::new();
    let mut checked_bodies = 0;
    let mut by_format: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for row in index.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [id, format, drift, expect] = cols[..] else {
            continue;
        };
        let case = dir.join(id);
        let Ok(reply) = fs::read_to_string(case.join("response.txt")) else {
            continue;
        };
        cases += 1;
        let x = extract(&reply);
        let drifts: Vec<&str> = drift.split(',').collect();
        let got: BTreeSet<String> = x
            .edits
            .iter()
            .flat_map(|e| {
                let mut v = vec![e.path.clone()];
                if let FileChange::Rename { to, .. } = &e.change {
                    v.push(to.clone());
                }
                v
            })
            .collect();
        let stat = by_format.entry(format.to_string()).or_default();
        stat.0 += 1;
        let mut ok = true;
        if expect == "apply" {
            let before = tree(&case.join("before"));
            let after = tree(&case.join("after"));
            let mut want: BTreeSet<String> = before
                .keys()
                .chain(after.keys())
                .filter(|p| before.get(*p) != after.get(*p))
                .cloned()
                .collect();
            if want.is_empty() {
                want = before.keys().cloned().collect();
            }
            if got != want {
                ok = false;
                path_mismatch.push(format!("{id}: got {got:?}, want {want:?}"));
            }
            let lazy_elide = format == "whole-file"
                && drifts.contains(&"elide")
                && x.issues.iter().all(|i| i.kind == IssueKind::Lazy);
            if lazy_elide && !x.issues.is_empty() {
                lazy_whole_file += 1;
            } else if !x.issues.is_empty() {
                ok = false;
                apply_issues.push(format!("{id}: {:?}", x.issues));
            }
            if drifts.iter().all(|d| EXACT_DRIFTS.contains(d)) {
                let base = if case.join("base").is_dir() {
                    tree(&case.join("base"))
                } else {
                    before.clone()
                };
                for e in &x.edits {
                    checked_bodies += 1;
                    let new = after.get(&e.path).map(|d| text_lines(d));
                    match &e.change {
                        FileChange::Modify { hunks } => {
                            let old = base.get(&e.path).map(|d| text_lines(d)).unwrap_or_default();
                            let new = new.unwrap_or_default();
                            for (k, h) in hunks.iter().enumerate() {
                                if !hunk_found(h, &old, &new)
                                    && !hunk_found(&with_maybe_added(h), &old, &new)
                                {
                                    ok = false;
                                    bad_clean.push(format!("{id}: {} hunk {}", e.path, k + 1));
                                }
                            }
                        }
                        FileChange::Create { content, .. }
                        | FileChange::Replace { content, .. } => {
                            let want = new.map(|l| l.join("\n")).unwrap_or_default();
                            let got: Vec<&str> = content.split('\n').collect();
                            if want.trim_end() != got.join("\n").trim_end() {
                                ok = false;
                                bad_clean.push(format!("{id}: {} content differs", e.path));
                            }
                        }
                        FileChange::Delete { .. } => {
                            if new.is_some() {
                                ok = false;
                                bad_clean.push(format!("{id}: {} deleted but kept", e.path));
                            }
                        }
                        FileChange::Rename { .. } => {}
                    }
                }
            }
        }
        if drifts.contains(&"truncated") && !x.issues.iter().any(|i| i.kind == IssueKind::Truncated)
        {
            ok = false;
            missed_trunc.push(format!("{id}: issues {:?}, paths {got:?}", x.issues));
        }
        if ok {
            stat.1 += 1;
        }
    }
    if cases == 0 {
        skip::skip(
            "corpus_extraction",
            "the corpus index has no readable cases",
        );
        return;
    }
    eprintln!("corpus extraction: {cases} cases");
    for (f, (n, ok)) in &by_format {
        eprintln!("  {f:<16} {ok:>5}/{n:<5} as expected");
    }
    eprintln!("  whole-file elide cases refused as lazy: {lazy_whole_file}");
    eprintln!("  file edits checked line for line: {checked_bodies}");
    for (name, list) in [
        ("path mismatches", &path_mismatch),
        ("apply cases with issues", &apply_issues),
        ("missed truncations", &missed_trunc),
        ("exact-drift bodies wrong", &bad_clean),
    ] {
        eprintln!("  {name}: {}", list.len());
        for m in list.iter().take(15) {
            eprintln!("    {m}");
        }
    }
    // Every list is empty today; any entry is a regression.
    assert!(path_mismatch.is_empty(), "path mismatches regressed");
    assert!(apply_issues.is_empty(), "apply cases with issues regressed");
    assert!(missed_trunc.is_empty(), "missed truncations regressed");
    assert!(bad_clean.is_empty(), "exact-drift bodies regressed");
    assert!(checked_bodies > 0, "no file edit was checked line for line");
}
