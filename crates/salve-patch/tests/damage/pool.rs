//! The replies the damaged-reply properties start from: every scenario (and, with
//! `SALVE_DAMAGE_CORPUS=1`, every case of the shared corpora v1 and v2) that edits one file,
//! has no baseline and no arguments, and whose reply applies in process to exactly its
//! `after/`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::apply::{self, Outcome};

/// One reply that applies: one file, its text before and after.
pub struct Source {
    pub name: String,
    pub path: String,
    pub before: String,
    pub after: String,
    pub reply: String,
}

pub fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    v.strip_prefix("0x")
        .map_or_else(|| v.parse().ok(), |h| u64::from_str_radix(h, 16).ok())
}

/// The only file under `dir`, relative, with its text.
fn only_file(dir: &Path) -> Option<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                found.push(p);
            }
        }
    }
    let [p] = &found[..] else { return None };
    let rel = p
        .strip_prefix(dir)
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    Some((rel, fs::read_to_string(p).ok()?))
}

/// Every usable reply: the scenario folders', and the corpora's when `SALVE_DAMAGE_CORPUS` is
/// set (the corpora sit beside the repository, when they do).
pub fn sources() -> Vec<Source> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = usable(&root.join("../../tests/fixtures/scenarios"), "reply.txt");
    if std::env::var_os("SALVE_DAMAGE_CORPUS").is_some() {
        for corpus in [
            "../../../shared/corpus/cases",
            "../../../shared/corpus/v2/cases",
        ] {
            out.extend(usable(&root.join(corpus), "response.txt"));
        }
    }
    out
}

fn usable(dir: &Path, reply_name: &str) -> Vec<Source> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    let mut out = Vec::new();
    for dir in names {
        if dir.join("base").exists() || dir.join("args.txt").exists() {
            continue;
        }
        let (Some((path, before)), Some((path2, after))) = (
            only_file(&dir.join("before")),
            only_file(&dir.join("after")),
        ) else {
            continue;
        };
        let Ok(reply) = fs::read_to_string(dir.join(reply_name)) else {
            continue;
        };
        if path != path2 || before == after || reply.contains("{OUTSIDE}") {
            continue;
        }
        if let Outcome::Text(t) = apply::run(&reply, &path, &before, None) {
            if t == after {
                let name = dir.file_name().unwrap().to_string_lossy().into_owned();
                out.push(Source {
                    name,
                    path,
                    before,
                    after,
                    reply,
                });
            }
        }
    }
    out
}

/// Whether `written` is `before` with part of the change to `after` made and nothing else:
/// each change of the line diff from `before` to `after` is made wholly or not at all, except
/// one, which may be made in part, as a reply cut inside it leaves it: its first added lines
/// (the last of them possibly cut short), or its old lines (with those of the next few ops, when
/// the diff splits a removal around a line it keeps) with the first ones removed and nothing
/// added yet.
pub fn part_of_change(before: &str, written: &str, after: &str) -> bool {
    let b: Vec<&str> = before.lines().collect();
    let a: Vec<&str> = after.lines().collect();
    let w: Vec<&str> = written.lines().collect();
    // A diff of repeated lines may align a change a few lines off from where the reply made
    // it: any of the three alignments will do.
    [
        similar::Algorithm::Myers,
        similar::Algorithm::Patience,
        similar::Algorithm::Lcs,
    ]
    .into_iter()
    .any(|algorithm| {
        let ops = similar::capture_diff_slices(algorithm, &b, &a);
        let mut failed = std::collections::HashSet::new();
        let t = Texts {
            b: &b,
            a: &a,
            w: &w,
            ops: &ops,
        };
        walk(&t, 0, 0, true, &mut failed)
    })
}

struct Texts<'a> {
    b: &'a [&'a str],
    a: &'a [&'a str],
    w: &'a [&'a str],
    ops: &'a [similar::DiffOp],
}

fn starts(w: &[&str], at: usize, lines: &[&str]) -> bool {
    w.get(at..at + lines.len()) == Some(lines)
}

/// Whether `t.w[at..]` is what the changes from `op` on make of the rest, some made and some
/// not, one in part when `part` is still allowed. `failed` remembers states that do not work.
fn walk(
    t: &Texts,
    op: usize,
    at: usize,
    part: bool,
    failed: &mut std::collections::HashSet<(usize, usize, bool)>,
) -> bool {
    let Some(o) = t.ops.get(op) else {
        return at == t.w.len();
    };
    if failed.contains(&(op, at, part)) {
        return false;
    }
    let (old, new) = (o.old_range(), o.new_range());
    let (old, new) = (&t.b[old], &t.a[new]);
    let mut ok = if matches!(o, similar::DiffOp::Equal { .. }) {
        starts(t.w, at, old) && walk(t, op + 1, at + old.len(), part, failed)
    } else {
        (starts(t.w, at, old) && walk(t, op + 1, at + old.len(), part, failed))
            || (starts(t.w, at, new) && walk(t, op + 1, at + new.len(), part, failed))
    };
    if !ok && part {
        // The first `j` added lines, then perhaps the next one cut short.
        for j in 0..new.len() {
            if !starts(t.w, at, &new[..j]) {
                break;
            }
            let cut = t.w.get(at + j).is_some_and(|l| new[j].starts_with(l));
            if walk(t, op + 1, at + j, false, failed)
                || (cut && walk(t, op + 1, at + j + 1, false, failed))
            {
                ok = true;
                break;
            }
        }
        // Or the old lines of this op and the next few, with one run of them removed and
        // nothing added: a removal cut short, which the diff may align a few lines off (into
        // the unchanged lines before it, when they repeat the removed ones).
        ok = ok || removal_cut(t, op, at, failed);
    }
    if !ok {
        failed.insert((op, at, part));
    }
    ok
}

/// Whether `t.w[at..]` goes on as the old lines of ops `op..m` (for some `m`, the first op's
/// unchanged lines only from its last few) with one run of them removed, then as the rest.
fn removal_cut(
    t: &Texts,
    op: usize,
    at: usize,
    failed: &mut std::collections::HashSet<(usize, usize, bool)>,
) -> bool {
    let first = &t.b[t.ops[op].old_range()];
    let skip = if matches!(t.ops[op], similar::DiffOp::Equal { .. }) {
        first.len().saturating_sub(8)
    } else {
        0
    };
    if !starts(t.w, at, &first[..skip]) {
        return false;
    }
    let at = at + skip;
    for m in op + 1..=(op + 8).min(t.ops.len()) {
        let olds: Vec<&str> = t.ops[op..m]
            .iter()
            .flat_map(|o| t.b[o.old_range()].iter().copied())
            .skip(skip)
            .collect();
        // A cut removal is a hunk's worth of lines, not a file's.
        if olds.len() > 64 {
            break;
        }
        for x in 0..olds.len() {
            if !starts(t.w, at, &olds[..x]) {
                break;
            }
            for k in 1..=olds.len() - x {
                let rest = &olds[x + k..];
                if starts(t.w, at + x, rest) && walk(t, m, at + x + rest.len(), false, failed) {
                    return true;
                }
            }
        }
    }
    false
}
