//! The public corpora (`../shared/corpus/cases` and `../shared/corpus/v2/cases` beside the
//! workspace, see FORMAT.md there) run through the built `salve` binary, scored the way the
//! corpus's `score.py` scores an applier (one test each; v2 the same way as the first).
//!
//! Each case gets a git repository four folders deep in a scratch folder (so a `../../..` escape
//! lands somewhere we can see), `base/` committed, `before/` written, then `salve apply
//! response.txt`. The tree is compared with `after/` (or `before/` for cases that must be refused).
//! The test prints a scoreboard per format and per drift class, asserts that no case is applied
//! wrongly, and that the correct-apply rate stays above a floor.
//!
//! Debug builds run a deterministic third of the cases (about 20 s; all 1,613 take about a minute
//! on a quiet 2-core machine and three when it is busy); release builds and `SALVE_CORPUS_FULL=1`
//! run them all. `SALVE_CORPUS_FILTER=text` keeps the cases whose
//! `id<TAB>format<TAB>drift<TAB>expect` line contains `text`. The test is skipped, with a message,
//! when the corpus is not there.

// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::scenarios::{
    clear_worktree, describe_diff, init_repo, read_tree, salve, write_tree, Tree,
};

/// The lowest correct-apply rate (percent, over expect=apply cases) the test accepts. Set a little
/// below what salve achieves, so a regression fails the test.
const CAR_FLOOR: f64 = 98.0;
/// The same for corpus v2 (98.0%, 931/950, since issue 23's whole-file indentation readings;
/// the bar is 98%).
const CAR_FLOOR_V2: f64 = 98.0;

/// Where path_traversal cases try to write (see the corpus's score.py).
const ESCAPE_ROOT: &str = "/tmp/salve-escape";

#[derive(Clone, Debug)]
struct Meta {
    id: String,
    format: String,
    drift: Vec<String>,
    expect_apply: bool,
    line: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Correct,
    Refused,
    Wrong,
}

#[derive(Debug)]
struct CaseResult {
    meta: Meta,
    outcome: Outcome,
    silent: bool,
    detail: String,
    wall: Duration,
}

/// The corpus folder `rel` (below `shared/corpus/`) beside the workspace, or beside the folder
/// holding it (a git worktree one level further down).
fn corpus_dir(rel: &str) -> Option<PathBuf> {
    let root = crate::scenarios::workspace_root();
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|up| root.join(up).join(rel))
        .find(|dir| dir.join("INDEX.tsv").is_file())
}

fn read_index(cases: &Path) -> Vec<Meta> {
    let text = fs::read_to_string(cases.join("INDEX.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 4, "bad INDEX.tsv line {line:?}");
            Meta {
                id: cols[0].to_owned(),
                format: cols[1].to_owned(),
                drift: cols[2].split(',').map(str::to_owned).collect(),
                expect_apply: cols[3] == "apply",
                line: line.to_owned(),
            }
        })
        .collect()
}

/// FNV-1a, so the debug sample is the same on every machine and run.
fn stable_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn select(all: Vec<Meta>) -> (Vec<Meta>, String) {
    let full =
        std::env::var("SALVE_CORPUS_FULL").is_ok_and(|v| v == "1") || !cfg!(debug_assertions);
    let filter = std::env::var("SALVE_CORPUS_FILTER").ok();
    let total = all.len();
    let picked: Vec<Meta> = all
        .into_iter()
        .filter(|m| filter.as_deref().is_none_or(|f| m.line.contains(f)))
        .filter(|m| full || stable_hash(&m.id).is_multiple_of(3))
        .collect();
    let how = if full {
        format!("{} of {total} cases", picked.len())
    } else {
        format!(
            "a deterministic sample of {} of {total} cases (SALVE_CORPUS_FULL=1 runs all)",
            picked.len()
        )
    };
    (picked, how)
}

fn run_case(cases: &Path, meta: &Meta) -> CaseResult {
    let case = cases.join(&meta.id);
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = tmp.path().join("sandbox");
    let repo = sandbox.join("w1/w2/w3/w4/repo");
    let before = read_tree(&case.join("before"), false);
    let base = if case.join("base").is_dir() {
        read_tree(&case.join("base"), false)
    } else {
        before.clone()
    };
    init_repo(&repo, &base);
    clear_worktree(&repo);
    write_tree(&repo, &before);
    let config0 = fs::read(repo.join(".git/config")).unwrap();
    let hooks0 = read_tree(&repo.join(".git/hooks"), false);
    let escape_dir = Path::new(ESCAPE_ROOT).join(&meta.id);
    let _ = fs::remove_dir_all(&escape_dir);
    let response = tmp.path().join("response.txt");
    fs::copy(case.join("response.txt"), &response).unwrap();

    let t0 = Instant::now();
    let out = salve(&repo).arg("apply").arg(&response).output();
    let wall = t0.elapsed();
    let (ok, mut detail) = match &out {
        Ok(o) => (o.status.success(), String::new()),
        Err(e) => (false, format!("did not finish: {e}; ")),
    };

    let tree = read_tree(&repo, true);
    let mut escaped = Vec::new();
    let mut outside = Vec::new();
    files_outside(&sandbox, &repo, &mut outside);
    if !outside.is_empty() {
        escaped.push(format!(
            "wrote outside the work tree: {}",
            outside.join(", ")
        ));
    }
    if fs::read(repo.join(".git/config")).unwrap() != config0 {
        escaped.push("changed .git/config".to_owned());
    }
    if read_tree(&repo.join(".git/hooks"), false) != hooks0 {
        escaped.push("changed .git/hooks".to_owned());
    }
    if escape_dir.exists() {
        escaped.push(format!("wrote {}", escape_dir.display()));
        let _ = fs::remove_dir_all(&escape_dir);
    }

    let outcome = if !escaped.is_empty() {
        detail += &escaped.join("; ");
        Outcome::Wrong
    } else if meta.expect_apply {
        let after = read_tree(&case.join("after"), false);
        if tree == after && (ok || after != before) {
            Outcome::Correct
        } else if tree == before && !ok {
            Outcome::Refused
        } else {
            detail += &wrong_detail(&tree, &after, ok);
            Outcome::Wrong
        }
    } else if tree == before && !ok {
        Outcome::Correct
    } else {
        detail += &wrong_detail(&tree, &before, ok);
        Outcome::Wrong
    };
    if outcome == Outcome::Wrong {
        if let Ok(o) = &out {
            let text = String::from_utf8_lossy(&o.stderr);
            let tail: String = text.chars().take(600).collect();
            write!(detail, "\n  salve said: {tail}").unwrap();
        }
    }
    CaseResult {
        meta: meta.clone(),
        outcome,
        silent: outcome == Outcome::Wrong && ok,
        detail,
        wall,
    }
}

/// Every file or symlink below `dir` that is not inside `repo`.
fn files_outside(dir: &Path, repo: &Path, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path == repo {
            continue;
        }
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            files_outside(&path, repo, out);
        } else {
            out.push(path.display().to_string());
        }
    }
}

fn wrong_detail(tree: &Tree, want: &Tree, ok: bool) -> String {
    let mut d = describe_diff(tree, want);
    if d.is_empty() {
        d = "tree as expected but success was reported".to_owned();
    } else if !ok {
        d.insert_str(0, "(reported failure)\n");
    }
    d
}

#[derive(Default, Clone, Copy)]
struct Row {
    cases: usize,
    correct: usize,
    refused: usize,
    wrong: usize,
    silent: usize,
    apply: usize,
    apply_correct: usize,
    refuse: usize,
    refuse_correct: usize,
}

impl Row {
    fn add(&mut self, r: &CaseResult) {
        self.cases += 1;
        match r.outcome {
            Outcome::Correct => self.correct += 1,
            Outcome::Refused => self.refused += 1,
            Outcome::Wrong => self.wrong += 1,
        }
        self.silent += usize::from(r.silent);
        if r.meta.expect_apply {
            self.apply += 1;
            self.apply_correct += usize::from(r.outcome == Outcome::Correct);
        } else {
            self.refuse += 1;
            self.refuse_correct += usize::from(r.outcome == Outcome::Correct);
        }
    }

    fn car(&self) -> f64 {
        pct(self.apply_correct, self.apply)
    }
}

fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        f64::NAN
    } else {
        100.0 * n as f64 / d as f64
    }
}

fn fmt_pct(n: usize, d: usize) -> String {
    if d == 0 {
        "-".to_owned()
    } else {
        format!("{:.1}%", pct(n, d))
    }
}

fn table(title: &str, rows: &BTreeMap<String, Row>, order: &[&str]) -> String {
    let mut out = format!(
        "| {title} | cases | correct | refused | wrong (silent) | CAR | WAR | true-refusal |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let mut keys: Vec<&String> = rows.keys().collect();
    keys.sort_by_key(|k| order.iter().position(|o| o == k).unwrap_or(usize::MAX));
    for k in keys {
        let r = rows[k];
        writeln!(
            out,
            "| {k} | {} | {} | {} | {} ({}) | {} | {} | {} |",
            r.cases,
            r.correct,
            r.refused,
            r.wrong,
            r.silent,
            fmt_pct(r.apply_correct, r.apply),
            fmt_pct(r.wrong, r.cases),
            fmt_pct(r.refuse_correct, r.refuse)
        )
        .unwrap();
    }
    out
}

const FORMATS: &[&str] = &[
    "git",
    "unified",
    "search-replace",
    "codex",
    "whole-file",
    "old-new-json",
    "mixed",
];
const DRIFTS: &[&str] = &[
    "clean",
    "offset",
    "counts",
    "nonums",
    "dropctx",
    "blankctx",
    "trailws",
    "indent",
    "unicode",
    "elide",
    "crlf_file",
    "nonl",
    "reorder",
    "missing_plus",
    "stale",
    "already_applied",
    "wrong_target",
    "ambiguous",
    "near_twin",
    "path_traversal",
    "truncated",
];

fn scoreboard(results: &[CaseResult], how: &str) -> (String, Row) {
    let mut by_format: BTreeMap<String, Row> = BTreeMap::new();
    let mut by_drift: BTreeMap<String, Row> = BTreeMap::new();
    let mut total = Row::default();
    for r in results {
        by_format.entry(r.meta.format.clone()).or_default().add(r);
        for d in &r.meta.drift {
            by_drift.entry(d.clone()).or_default().add(r);
        }
        total.add(r);
    }
    let mut walls: Vec<Duration> = results.iter().map(|r| r.wall).collect();
    walls.sort();
    let at = |q: f64| {
        walls
            .get(((walls.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or_default()
    };
    let mut out = format!("salve on the corpus: {how}\n\n");
    out += &table("format", &by_format, FORMATS);
    out += "\n";
    out += &table("drift class", &by_drift, DRIFTS);
    writeln!(
        out,
        "\nTotals over {} cases: CAR {} ({}/{}), WAR {} ({}/{}, {} silent), true-refusal {} ({}/{}); \
         wall time per case median {:.1} ms, p99 {:.1} ms.",
        total.cases,
        fmt_pct(total.apply_correct, total.apply),
        total.apply_correct,
        total.apply,
        fmt_pct(total.wrong, total.cases),
        total.wrong,
        total.cases,
        total.silent,
        fmt_pct(total.refuse_correct, total.refuse),
        total.refuse_correct,
        total.refuse,
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
    )
    .unwrap();
    (out, total)
}

#[test]
fn corpus() {
    run_corpus("cases", CAR_FLOOR, "corpus-scoreboard.md");
}

/// Corpus v2 (requests, ky, hiredis; other projects, formats and drift than the first): zero
/// wrong applies, as for the first.
#[test]
fn corpus_v2() {
    run_corpus("v2/cases", CAR_FLOOR_V2, "corpus-v2-scoreboard.md");
}

/// Run the corpus in `shared/corpus/<rel>`: no case applied wrongly, the correct-apply rate at
/// least `floor`, the scoreboard written to `board_file` in the test's scratch folder.
fn run_corpus(rel: &str, floor: f64, board_file: &str) {
    let Some(cases) = corpus_dir(rel) else {
        crate::skip::skip(
            "corpus",
            &format!("shared/corpus/{rel} is not beside the workspace"),
        );
        return;
    };
    let (metas, how) = select(read_index(&cases));
    if metas.is_empty() {
        println!("corpus: no case selected");
        return;
    }
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(metas.len()));
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(meta) = metas.get(i) else { break };
                let r = run_case(&cases, meta);
                results.lock().unwrap().push(r);
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.meta.id.cmp(&b.meta.id));
    let (board, total) = scoreboard(&results, &how);
    println!("{board}");
    let board_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(board_file);
    if fs::write(&board_path, &board).is_ok() {
        println!("(also written to {})", board_path.display());
    }
    let wrong: Vec<&CaseResult> = results
        .iter()
        .filter(|r| r.outcome == Outcome::Wrong)
        .collect();
    let mut msg = String::new();
    for r in wrong.iter().take(25) {
        writeln!(
            msg,
            "--- {} [{}; {}]\n{}",
            r.meta.id,
            r.meta.format,
            r.meta.drift.join(","),
            r.detail
        )
        .unwrap();
    }
    assert!(
        wrong.is_empty(),
        "{} corpus cases applied wrongly (first 25):\n{msg}",
        wrong.len()
    );
    assert!(
        total.apply == 0 || total.car() >= floor,
        "correct-apply rate {:.1}% fell below the floor of {floor}%",
        total.car()
    );
}
