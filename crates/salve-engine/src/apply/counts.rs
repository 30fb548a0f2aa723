//! Line counts as git would show them: taken from the unified diff of what was written (or
//! would be, under a check), not from the hunks of the reply. A one-line edit given as a
//! two-line SEARCH block, or a change inside a line, counts `+1 -1`, as in `git diff --stat`;
//! a file that did not change counts nothing.

use std::collections::HashMap;

use salve_patch::{Report, Status};

/// Set each written file's `added` and `removed` from `diff`. Files the diff does not name
/// (already applied, refused, skipped) count nothing.
pub(super) fn recount(report: &mut Report, diff: &str) {
    let counted = count(diff);
    for file in &mut report.files {
        if file.status != Status::Applied {
            file.added = 0;
            file.removed = 0;
            continue;
        }
        let key = file.new_path.as_deref().unwrap_or(&file.path);
        let (added, removed) = counted
            .get(key)
            .or_else(|| counted.get(file.path.as_str()))
            .copied()
            .unwrap_or((0, 0));
        file.added = added;
        file.removed = removed;
    }
}

/// Lines added and removed per file of a unified diff, keyed by the new path (the old one for
/// a deletion). Hunk bodies are read by their header counts, so a removed line that begins with
/// `--` is never taken for a file header.
fn count(diff: &str) -> HashMap<String, (usize, usize)> {
    let mut out: HashMap<String, (usize, usize)> = HashMap::new();
    let mut lines = diff.lines().peekable();
    let mut old_path: Option<String> = None;
    let mut current: Option<String> = None;
    while let Some(line) = lines.next() {
        if let Some(path) = line.strip_prefix("--- ") {
            old_path = header_path(path);
        } else if let Some(path) = line.strip_prefix("+++ ") {
            current = header_path(path).or_else(|| old_path.clone());
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            let Some((mut old_left, mut new_left)) = hunk_counts(rest) else {
                continue;
            };
            let entry = out.entry(current.clone().unwrap_or_default()).or_default();
            while old_left + new_left > 0 {
                let Some(body) = lines.next() else { break };
                match body.as_bytes().first() {
                    Some(b'+') => {
                        entry.0 += 1;
                        new_left = new_left.saturating_sub(1);
                    }
                    Some(b'-') => {
                        entry.1 += 1;
                        old_left = old_left.saturating_sub(1);
                    }
                    // `\ No newline at end of file` belongs to the line before it.
                    Some(b'\\') => {}
                    _ => {
                        old_left = old_left.saturating_sub(1);
                        new_left = new_left.saturating_sub(1);
                    }
                }
            }
        }
    }
    out
}

/// `a/src/x.rs` → `src/x.rs`; `/dev/null` → none.
fn header_path(text: &str) -> Option<String> {
    let path = text.split('\t').next().unwrap_or(text).trim_end();
    if path == "/dev/null" {
        return None;
    }
    let path = path
        .strip_prefix("a/")
        .or_else(|| path.strip_prefix("b/"))
        .unwrap_or(path);
    Some(path.to_owned())
}

/// The old and new line counts of `-a,b +c,d @@ ...` (a missing count is 1).
fn hunk_counts(rest: &str) -> Option<(usize, usize)> {
    let mut parts = rest.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let len = |range: &str| match range.split_once(',') {
        Some((_, n)) => n.parse().ok(),
        None => Some(1),
    };
    Some((len(old)?, len(new)?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn counts_follow_the_hunk_bodies() {
        let diff = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n--- not a header\n+-- replaced\n three\ndiff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\ndiff --git a/gone.txt b/gone.txt\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
        let counted = count(diff);
        assert_eq!(counted["a.txt"], (1, 1));
        assert_eq!(counted["new.txt"], (2, 0));
        assert_eq!(counted["gone.txt"], (0, 1));
    }
}
