//! The repair's own lines, apart from the user's (issue 24 §3). The fix commits exactly what its
//! repairs changed, on top of HEAD's version of each file; lines the user wrote in the same file,
//! staged or not, stay where they were. For each file a repair touched:
//!
//! - the file before the repairs is the file now with the kept repairs taken back, newest first,
//!   in memory; each hunk must place exactly, or the repair's lines are not known apart;
//! - what the commit holds is HEAD's version with the change from "before" to "now" carried
//!   over ([`salve_patch::transplant`]), and what the user's index holds is their staged version
//!   with the same change carried over.
//!
//! A change that cannot be carried (a repaired line that is also a user's line, an insertion
//! where the user inserted too) means the two cannot be separated: then nothing is committed,
//! and the caller says so.

use std::path::{Path, PathBuf};

use salve_git::commit::files::Exact;
use salve_git::Repo;
use salve_patch::{transplant, FileChange, Rung, Status};

/// What to commit for each file, or the files whose repair lines cannot be told apart from the
/// user's.
pub(super) fn repair_alone(
    repo: &Repo,
    touched: &[String],
    diffs: &[&str],
) -> Result<Vec<Exact>, Vec<String>> {
    let mut out = Vec::new();
    let mut tangled = Vec::new();
    for path in touched {
        match one_file(repo, path, diffs) {
            Some(exact) => out.push(exact),
            None => tangled.push(path.clone()),
        }
    }
    if tangled.is_empty() {
        Ok(out)
    } else {
        Err(tangled)
    }
}

fn one_file(repo: &Repo, path: &str, diffs: &[&str]) -> Option<Exact> {
    let real = repo.root.join(path);
    let now = read_text(&real)?;
    let before = taken_back(now.clone(), path, diffs)?;
    let head = blob_text(repo.blob_at("HEAD", path).ok()?)?;
    let staged = blob_text(repo.blob_at("", path).ok()?)?;
    Some(Exact {
        path: PathBuf::from(path),
        commit: merged(before.as_deref(), head.as_deref(), now.as_deref())?,
        index: merged(before.as_deref(), staged.as_deref(), now.as_deref())?,
        mode: mode_of(&real),
    })
}

/// `ours` with the change from `base` to `theirs` carried over; a missing file is `None`. `None`
/// for the outer option when the change cannot be carried.
#[allow(clippy::option_option)]
fn merged(base: Option<&str>, ours: Option<&str>, theirs: Option<&str>) -> Option<Option<Vec<u8>>> {
    if ours == base {
        return Some(theirs.map(|t| t.as_bytes().to_vec()));
    }
    match (base, ours, theirs) {
        (Some(b), Some(o), Some(t)) => transplant(b, o, t).map(|m| Some(m.into_bytes())),
        // A file the repair created or deleted, which the user also changed: not separable.
        _ => None,
    }
}

/// The file's text before the repairs: `now` with each repair's edits to `path` taken back,
/// newest first. `None` when a hunk does not place exactly.
#[allow(clippy::option_option)]
fn taken_back(now: Option<String>, path: &str, diffs: &[&str]) -> Option<Option<String>> {
    let mut text = now;
    for diff in diffs.iter().rev() {
        let extraction = salve_patch::extract(diff);
        for edit in extraction.edits.iter().rev().filter(|e| e.path == path) {
            text = match (&edit.change, text) {
                (FileChange::Modify { hunks }, Some(current)) => {
                    let back: Vec<_> = hunks.iter().map(|h| h.reversed()).collect();
                    let out = salve_patch::apply_hunks(&current, &back, None);
                    let exact = out.status == Status::Applied
                        && out.hunks.iter().all(|h| h.rung == Some(Rung::Exact));
                    if !exact {
                        return None;
                    }
                    Some(out.new_text.unwrap_or(current))
                }
                // Taking back a creation leaves no file; a deletion, its old text if shown.
                (FileChange::Create { .. }, _) => None,
                (
                    FileChange::Delete {
                        expected: Some(old),
                    },
                    None,
                ) => Some(old.clone()),
                _ => return None,
            };
        }
    }
    Some(text)
}

/// A file's text, `Some(None)` when it does not exist; `None` when it cannot be read as text.
#[allow(clippy::option_option)]
fn read_text(path: &Path) -> Option<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).ok().map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
    }
}

#[allow(clippy::option_option)]
fn blob_text(blob: Option<Vec<u8>>) -> Option<Option<String>> {
    match blob {
        Some(bytes) => String::from_utf8(bytes).ok().map(Some),
        None => Some(None),
    }
}

#[cfg(unix)]
fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().mode() & 0o111 != 0 => 0o100755,
        _ => 0o100644,
    }
}

#[cfg(not(unix))]
fn mode_of(_path: &Path) -> u32 {
    0o100644
}
