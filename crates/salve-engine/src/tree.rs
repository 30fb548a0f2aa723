//! Listing the files of a work tree, for path resolution.
//!
//! In a git repository the list is what git knows or would add: tracked files plus untracked
//! files that are not ignored (`git ls-files --cached --others --exclude-standard`), so build
//! output and vendored trees never make a name ambiguous. Outside git, or when git fails, the
//! directory is walked, skipping `.git` and never following symlinked directories.

use std::path::Path;

use salve_git::Git;

use crate::paths::{normalize, TreePath};

/// Stop walking after this many files: resolution over a larger tree would be slow and its
/// answers hard to trust.
const WALK_LIMIT: usize = 200_000;

/// The regular files below `root`, sorted, as tree paths.
pub fn list_files(root: &Path, in_git: bool) -> Vec<TreePath> {
    let mut files = if in_git {
        // An empty answer means the whole directory is ignored or git misread it; the walk still
        // finds what is there.
        git_files(root)
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| walk(root))
    } else {
        walk(root)
    };
    files.retain(|f| f.under(root).is_file());
    files.sort();
    files.dedup();
    files
}

fn git_files(root: &Path) -> Option<Vec<TreePath>> {
    let bytes = Git::new(root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .run_bytes()
        .ok()?;
    Some(
        bytes
            .split(|b| *b == 0)
            .filter_map(|record| std::str::from_utf8(record).ok())
            .filter_map(|p| normalize(p).ok())
            .collect(),
    )
}

fn walk(root: &Path) -> Vec<TreePath> {
    let mut out = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name == ".git" {
                continue;
            }
            let rel = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(rel);
            } else if let Ok(path) = normalize(&rel) {
                out.push(path);
                if out.len() >= WALK_LIMIT {
                    return out;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_skips_git_and_lists_nested_files() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join(".git/objects"))?;
        std::fs::write(dir.path().join(".git/config"), "x")?;
        std::fs::create_dir_all(dir.path().join("a/b"))?;
        std::fs::write(dir.path().join("a/b/c.rs"), "x")?;
        std::fs::write(dir.path().join("top.rs"), "x")?;
        let files: Vec<String> = list_files(dir.path(), false)
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(files, vec!["a/b/c.rs".to_owned(), "top.rs".to_owned()]);
        Ok(())
    }
}
