//! The artifacts of an ask round besides the raw reply: the edits as salve read them, rendered
//! as a diff (the *sanitized diff*: hygiene applied, counts recomputed, paths as the reply gave
//! them), and the *final diff* of what was written, computed from the files before and after.
//!
//! Before-contents come from a snapshot of the files the reply names, taken just before the
//! apply; a file written under another name (a resolved path) is read from the checkpoint the
//! apply took.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use salve_patch::{unified_diff, Extraction, FileChange, FileEdit, Hunk, LineKind, Report, Status};

use crate::paths::guard;

/// The edits of an extraction as one diff-like text.
pub fn render_edits(extraction: &Extraction) -> String {
    let mut out = String::new();
    for edit in &extraction.edits {
        render_edit(&mut out, edit);
    }
    out
}

fn render_edit(out: &mut String, edit: &FileEdit) {
    let p = &edit.path;
    match &edit.change {
        FileChange::Modify { hunks } => {
            let _ = write!(out, "--- a/{p}\n+++ b/{p}\n");
            for h in hunks {
                render_hunk(out, h);
            }
        }
        FileChange::Rename { to, hunks } => {
            let _ = write!(
                out,
                "diff --git a/{p} b/{to}\nrename from {p}\nrename to {to}\n"
            );
            if !hunks.is_empty() {
                let _ = write!(out, "--- a/{p}\n+++ b/{to}\n");
                for h in hunks {
                    render_hunk(out, h);
                }
            }
        }
        FileChange::Create {
            content,
            final_newline,
        }
        | FileChange::Replace {
            content,
            final_newline,
        } => {
            let lines: Vec<&str> = content.lines().collect();
            let n = lines.len();
            if matches!(edit.change, FileChange::Create { .. }) {
                let _ = write!(out, "--- /dev/null\n+++ b/{p}\n@@ -0,0 +1,{n} @@\n");
            } else {
                let _ = write!(
                    out,
                    "--- a/{p}\n+++ b/{p}\n@@ replaces the whole file with {n} lines @@\n"
                );
            }
            push_lines(out, '+', &lines);
            if !final_newline && n > 0 {
                out.push_str(NO_NEWLINE);
            }
        }
        FileChange::Delete { expected } => {
            let _ = write!(out, "--- a/{p}\n+++ /dev/null\n");
            if let Some(text) = expected {
                let lines: Vec<&str> = text.lines().collect();
                let _ = writeln!(out, "@@ -1,{} +0,0 @@", lines.len());
                push_lines(out, '-', &lines);
            }
        }
    }
}

const NO_NEWLINE: &str = "\\ No newline at end of file\n";

fn push_lines(out: &mut String, sign: char, lines: &[&str]) {
    for l in lines {
        let _ = writeln!(out, "{sign}{l}");
    }
}

fn render_hunk(out: &mut String, h: &Hunk) {
    let old = h.pre_image().count();
    let new = h.post_image().count();
    let scope = h.scopes.last().map(|s| format!(" {s}")).unwrap_or_default();
    match h.old_start {
        Some(start) => {
            let _ = writeln!(out, "@@ -{start},{old} +{start},{new} @@{scope}");
        }
        None => {
            let _ = writeln!(out, "@@ -?,{old} +?,{new} @@{scope}");
        }
    }
    for line in &h.lines {
        let sign = match line.kind {
            LineKind::Context => ' ',
            LineKind::Remove => '-',
            LineKind::Add => '+',
        };
        let _ = writeln!(out, "{sign}{}", line.text);
    }
    if h.new_no_newline {
        out.push_str(NO_NEWLINE);
    }
}

/// The edits the apply accepted for placement (files whose report is a success, or skipped
/// only because another file was refused), with paths as resolved in the work tree.
pub fn sanitized(extraction: &Extraction, report: &Report) -> String {
    let mut out = String::new();
    for edit in &extraction.edits {
        let file = report.files.iter().find(|f| {
            f.requested_path.as_deref() == Some(edit.path.as_str())
                || (f.requested_path.is_none() && f.path == edit.path)
        });
        let Some(file) = file else { continue };
        if !(file.status.is_success() || file.status == Status::Skipped) {
            continue;
        }
        let mut resolved = edit.clone();
        resolved.path = file.path.clone();
        if let (FileChange::Rename { to, .. }, Some(new_path)) =
            (&mut resolved.change, &file.new_path)
        {
            *to = new_path.clone();
        }
        render_edit(&mut out, &resolved);
    }
    out
}

/// Files as they were before an apply, by path relative to the work tree; `None` for a file
/// that did not exist.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    files: BTreeMap<String, Option<String>>,
}

impl Snapshot {
    /// Read every file the extraction names (rename targets included), guarded like the apply
    /// guards them; paths the guard rejects are left out (the apply refuses them anyway).
    pub fn take(root: &Path, extraction: &Extraction) -> Snapshot {
        let mut files = BTreeMap::new();
        for edit in &extraction.edits {
            let mut names = vec![edit.path.as_str()];
            if let FileChange::Rename { to, .. } = &edit.change {
                names.push(to);
            }
            for name in names {
                if let Ok(g) = guard(root, name) {
                    let text = std::fs::read(&g.real)
                        .ok()
                        .map(|b| String::from_utf8_lossy(&b).into_owned());
                    files.insert(g.real_rel.to_string(), text);
                }
            }
        }
        Snapshot { files }
    }
}

/// The diff of the written files: before (from `snapshot`, else from `fallback`, a reader of
/// the checkpoint) against what is on disk now.
pub fn final_diff(
    root: &Path,
    written: &[PathBuf],
    snapshot: &Snapshot,
    fallback: &dyn Fn(&str) -> Option<Option<String>>,
) -> String {
    let mut out = String::new();
    let mut paths: Vec<String> = written
        .iter()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    paths.sort();
    paths.dedup();
    for rel in paths {
        let before = snapshot
            .files
            .get(&rel)
            .cloned()
            .or_else(|| fallback(&rel))
            .unwrap_or(None);
        let after = std::fs::read(root.join(&rel))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        let diff = match (&before, &after) {
            (None, None) => String::new(),
            (None, Some(new)) => unified_diff("/dev/null", &rel, "", new),
            (Some(old), None) => unified_diff(&rel, "/dev/null", old, ""),
            (Some(old), Some(new)) => unified_diff(&rel, &rel, old, new),
        };
        out.push_str(&diff);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn edits_render_as_a_readable_diff() {
        let reply = "--- a/x.py\n+++ b/x.py\n@@ -3,2 +3,2 @@ def f():\n a\n-b\n+c\n";
        let extraction = salve_patch::extract(reply);
        let text = render_edits(&extraction);
        assert_eq!(
            text,
            "--- a/x.py\n+++ b/x.py\n@@ -3,2 +3,2 @@ def f():\n a\n-b\n+c\n"
        );
    }

    #[test]
    fn the_final_diff_compares_the_snapshot_with_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        let extraction =
            salve_patch::extract("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n");
        let snapshot = Snapshot::take(&root, &extraction);
        std::fs::write(root.join("a.txt"), "two\n").unwrap();
        std::fs::write(root.join("new.txt"), "hi\n").unwrap();
        let diff = final_diff(
            &root,
            &[PathBuf::from("a.txt"), PathBuf::from("new.txt")],
            &snapshot,
            &|_| None,
        );
        assert!(diff.contains("-one\n+two\n"), "{diff}");
        assert!(diff.contains("new file mode"), "{diff}");
        assert!(diff.contains("+hi\n"), "{diff}");
    }
}
