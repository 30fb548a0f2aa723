//! Unified diffs out, in git's format: what `salve apply --check`, the record and the repair
//! prompt show, and what `git apply` accepts.
//!
//! [`unified_diff`] writes a `diff --git` header (`new file mode` / `deleted file mode` with
//! `/dev/null` for a created or deleted file), hunks with 3 lines of context merged when at most 6
//! unchanged lines separate them, git's section heading after `@@` (the nearest earlier line that
//! starts with a letter, `_` or `$`), and `\ No newline at end of file` markers. Lines are split at
//! `\n` only, so a CRLF file's `\r` stays part of each line, as in git.

use similar::{capture_diff_slices, group_diff_ops, Algorithm, DiffOp};

use crate::splice::Splice;
use crate::text::hash_str;

const CONTEXT: usize = 3;
/// git truncates section headings to this many bytes.
const HEADING_MAX: usize = 80;

/// Lines split at `\n`, each with its `\n` when it has one.
fn records(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The diff from `old` to `new` as git prints it; empty when they are equal. Pass `/dev/null` as
/// `old_path` for a created file and as `new_path` for a deleted one.
pub fn unified_diff(old_path: &str, new_path: &str, old: &str, new: &str) -> String {
    let create = old_path == "/dev/null";
    let delete = new_path == "/dev/null";
    if old == new && !create && !delete {
        return String::new();
    }
    let a_name = if create { new_path } else { old_path };
    let b_name = if delete { old_path } else { new_path };
    let mut out = format!("diff --git a/{a_name} b/{b_name}\n");
    if create {
        out.push_str("new file mode 100644\n");
    } else if delete {
        out.push_str("deleted file mode 100644\n");
    }
    if old == new {
        // An empty file created or deleted: git prints the header only.
        return out;
    }
    out.push_str(&if create {
        "--- /dev/null\n".to_string()
    } else {
        format!("--- a/{old_path}\n")
    });
    out.push_str(&if delete {
        "+++ /dev/null\n".to_string()
    } else {
        format!("+++ b/{new_path}\n")
    });
    let a = records(old);
    let b = records(new);
    let ops = line_diff(&a, &b);
    hunks(&mut out, &ops, &a, &|j| b[j]);
    out
}

/// The same diff as [`unified_diff`] from `original` to `splice` applied to it, without diffing:
/// the splice already says which lines changed. For a modified file (`old_path` and `new_path`
/// are both real paths).
pub fn unified_diff_spliced(
    old_path: &str,
    new_path: &str,
    original: &str,
    splice: &Splice,
) -> String {
    let changes = splice.line_changes(original);
    if changes.is_empty() {
        return String::new();
    }
    let mut out =
        format!("diff --git a/{old_path} b/{new_path}\n--- a/{old_path}\n+++ b/{new_path}\n");
    let a = records(original);
    let mut ops = Vec::new();
    let mut new_records: Vec<(usize, Vec<&str>)> = Vec::with_capacity(changes.len());
    let (mut old_at, mut new_at) = (0, 0);
    for c in &changes {
        if c.old_start > old_at {
            ops.push(DiffOp::Equal {
                old_index: old_at,
                new_index: new_at,
                len: c.old_start - old_at,
            });
            new_at += c.old_start - old_at;
        }
        let lines = records(&c.new_text);
        let (old_len, new_len) = (c.old_end - c.old_start, lines.len());
        ops.push(match (old_len, new_len) {
            (_, 0) => DiffOp::Delete {
                old_index: c.old_start,
                old_len,
                new_index: new_at,
            },
            (0, _) => DiffOp::Insert {
                old_index: c.old_start,
                new_index: new_at,
                new_len,
            },
            _ => DiffOp::Replace {
                old_index: c.old_start,
                old_len,
                new_index: new_at,
                new_len,
            },
        });
        new_records.push((new_at, lines));
        new_at += new_len;
        old_at = c.old_end;
    }
    if old_at < a.len() {
        ops.push(DiffOp::Equal {
            old_index: old_at,
            new_index: new_at,
            len: a.len() - old_at,
        });
    }
    // New lines are only asked for inside a change: find it by where it starts.
    let new_line = |j: usize| {
        let k = new_records.partition_point(|(start, _)| *start <= j) - 1;
        let (start, lines) = &new_records[k];
        lines[j - start]
    };
    hunks(&mut out, &ops, &a, &new_line);
    out
}

/// The `@@` hunks of `ops` (3 lines of context, merged when close), with old lines from `a` and
/// new ones from `b`.
fn hunks<'t>(out: &mut String, ops: &[DiffOp], a: &[&'t str], b: &dyn Fn(usize) -> &'t str) {
    for group in group_diff_ops(ops.to_vec(), CONTEXT) {
        if group.is_empty() {
            continue;
        }
        let o0 = group
            .iter()
            .map(|op| op.old_range().start)
            .min()
            .unwrap_or(0);
        let o1 = group.iter().map(|op| op.old_range().end).max().unwrap_or(0);
        let n0 = group
            .iter()
            .map(|op| op.new_range().start)
            .min()
            .unwrap_or(0);
        let n1 = group.iter().map(|op| op.new_range().end).max().unwrap_or(0);
        out.push_str(&format!(
            "@@ -{} +{} @@",
            span(o0, o1 - o0),
            span(n0, n1 - n0)
        ));
        if let Some(h) = heading(a, o0) {
            out.push(' ');
            out.push_str(h);
        }
        out.push('\n');
        for op in &group {
            match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    for line in &a[old_index..old_index + len] {
                        emit(out, ' ', line);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for line in &a[old_index..old_index + old_len] {
                        emit(out, '-', line);
                    }
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => {
                    for j in new_index..new_index + new_len {
                        emit(out, '+', b(j));
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for line in &a[old_index..old_index + old_len] {
                        emit(out, '-', line);
                    }
                    for j in new_index..new_index + new_len {
                        emit(out, '+', b(j));
                    }
                }
            }
        }
    }
}

/// The line diff of `a` and `b`. Myers runs over line hashes, which compare in one instruction
/// where the lines would take a `memcmp` each; should two different lines share a hash, an
/// "equal" run would be wrong, so the result is checked and the text diff runs instead.
///
/// The common head and tail (most of the file for a small edit) are not hashed: each pair gets
/// an id of its own, equal on both sides.
fn line_diff(a: &[&str], b: &[&str]) -> Vec<DiffOp> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let ids = |lines: &[&str]| -> Vec<u64> {
        let mid = head..lines.len() - tail;
        let mut out: Vec<u64> = (0..head as u64).collect();
        out.extend(lines[mid].iter().map(|l| hash_str(l)));
        out.extend((0..tail as u64).rev().map(|k| u64::MAX - k));
        out
    };
    let (ha, hb) = (ids(a), ids(b));
    let ops = capture_diff_slices(Algorithm::Myers, &ha, &hb);
    let exact = ops.iter().all(|op| match *op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => a[old_index..old_index + len] == b[new_index..new_index + len],
        _ => true,
    });
    if exact {
        ops
    } else {
        capture_diff_slices(Algorithm::Myers, a, b)
    }
}

/// `start,count` as git writes it: 1-based, the count left out when 1, and the line before the
/// hunk when it is empty.
fn span(start: usize, count: usize) -> String {
    match count {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{}", start + 1, count),
    }
}

fn emit(out: &mut String, prefix: char, line: &str) {
    out.push(prefix);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

/// git's default section heading for a hunk starting at line `start` of the old file.
fn heading<'a>(a: &[&'a str], start: usize) -> Option<&'a str> {
    let line = a[..start.min(a.len())]
        .iter()
        .rev()
        .find(|l| l.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$'))?;
    let mut end = line.len().min(HEADING_MAX);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let h = line[..end].trim_end();
    Some(h)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn hashed_diff_matches_the_text_diff() {
        let old: Vec<String> = (0..200).map(|i| format!("line {}\n", i % 17)).collect();
        let mut new = old.clone();
        new[3] = "changed\n".into();
        new.insert(100, "added\n".into());
        new.remove(150);
        new[197] = "line 1\n".into();
        let a: Vec<&str> = old.iter().map(String::as_str).collect();
        let b: Vec<&str> = new.iter().map(String::as_str).collect();
        assert_eq!(
            line_diff(&a, &b),
            capture_diff_slices(Algorithm::Myers, &a, &b)
        );
        assert_eq!(
            line_diff(&a, &a),
            capture_diff_slices(Algorithm::Myers, &a, &a)
        );
        assert_eq!(
            line_diff(&a[..5], &b[..0]),
            capture_diff_slices(Algorithm::Myers, &a[..5], &b[..0])
        );
    }

    #[test]
    fn modify_with_context_and_heading() {
        let old = "fn main() {\n    a();\n    b();\n    c();\n}\n";
        let new = "fn main() {\n    a();\n    B();\n    c();\n}\n";
        let d = unified_diff("src/m.rs", "src/m.rs", old, new);
        assert_eq!(
            d,
            "diff --git a/src/m.rs b/src/m.rs\n--- a/src/m.rs\n+++ b/src/m.rs\n@@ -1,5 +1,5 @@\n fn main() {\n     a();\n-    b();\n+    B();\n     c();\n }\n"
        );
    }

    /// `n` distinct lines, CRLF when asked.
    fn distinct(n: usize, crlf: bool) -> String {
        let eol = if crlf { "\r\n" } else { "\n" };
        (0..n).map(|i| format!("line {i}{eol}")).collect()
    }

    fn spliced_vs_diffed(original: &str, ops: &[crate::ops::Op], eof: Option<bool>) {
        let doc = crate::text::Doc::parse(original);
        let s = crate::ops::splice(&doc, ops, eof, true);
        let new = s.materialize(original);
        assert_eq!(
            unified_diff_spliced("f", "f", original, &s),
            unified_diff("f", "f", original, &new),
            "ops {ops:?} eof {eof:?}"
        );
    }

    fn op(start: usize, end: usize, insert: &[&str]) -> crate::ops::Op {
        crate::ops::Op {
            start,
            end,
            insert: insert
                .iter()
                .map(|t| crate::ops::NewLine {
                    text: (*t).to_owned(),
                    eol: None,
                })
                .collect(),
            hunk: 0,
        }
    }

    #[test]
    fn a_splice_renders_the_diff_the_texts_give() {
        let mut seed: u64 = 11;
        let mut next = |m: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize % m
        };
        for round in 0..400 {
            let n = 1 + next(40);
            let original = distinct(n, round % 5 == 0);
            let mut ops = Vec::new();
            let mut at = 0;
            while at < n && ops.len() < 4 {
                let start = at + next(8);
                if start > n {
                    break;
                }
                let end = (start + next(3)).min(n);
                let fresh: Vec<String> = (0..next(3)).map(|k| format!("new {round} {k}")).collect();
                let fresh: Vec<&str> = fresh.iter().map(String::as_str).collect();
                if start == end && fresh.is_empty() {
                    at = start + 1;
                    continue;
                }
                ops.push(op(start, end, &fresh));
                at = end + 1;
            }
            let eof = match round % 7 {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            };
            spliced_vs_diffed(&original, &ops, eof);
            // The same without a final newline to begin with.
            spliced_vs_diffed(original.trim_end(), &ops, eof);
        }
    }

    #[test]
    fn create_delete_and_missing_newline() {
        let d = unified_diff("/dev/null", "n.txt", "", "x\ny");
        assert_eq!(
            d,
            "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
        );
        let d = unified_diff("o.txt", "/dev/null", "x\n", "");
        assert!(
            d.contains("deleted file mode 100644\n--- a/o.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
        );
        assert_eq!(unified_diff("a", "a", "same\n", "same\n"), "");
    }
}
