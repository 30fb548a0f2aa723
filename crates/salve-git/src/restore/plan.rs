//! What a restore will delete and write, and what stands in its way, decided before anything
//! is touched.
//!
//! The plan comes from `diff-tree` between the snapshot just taken (the current state) and the
//! target. Paths the current snapshot has and the target lacks are deleted; paths the target has
//! are written. Before that, every path to write is checked on disk: a file or symlink standing
//! where a directory must go, or a directory holding anything that will not be deleted, blocks
//! the restore; an existing file the snapshot did not capture (ignored, for instance) is captured
//! first so the restore stays undoable. Submodules and nested repositories are never entered.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::cmd::{split_nul, GitError};
use crate::path::path_from_bytes;
use crate::repo::{is_nested_repository, Repo};

const GITLINK: u32 = 0o160000;

/// One changed path between two trees, target side.
#[derive(Clone, Debug)]
pub(super) struct Change {
    pub old_mode: u32,
    pub new_mode: u32,
    pub new_oid: String,
    pub path: PathBuf,
}

/// Something on disk that keeps a restore from writing `path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// Relative to the work tree root.
    pub path: PathBuf,
    pub kind: ConflictKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConflictKind {
    /// A file or symlink that salve would have to remove to create a directory there.
    FileInTheWay { blocking: PathBuf },
    /// A directory holding a file (`blocking`) that is not part of the snapshot.
    DirectoryInTheWay { blocking: PathBuf },
    /// The path lies inside a nested repository or submodule.
    InsideNestedRepository { repository: PathBuf },
    /// An uncaptured file that would be overwritten and is too large to capture first.
    TooLargeToCapture { bytes: u64 },
    /// An uncaptured file that would be overwritten and that git would not snapshot.
    NotCapturable,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.kind {
            ConflictKind::FileInTheWay { blocking } => write!(
                f,
                "{path}: {} is a file that no checkpoint holds",
                blocking.display()
            ),
            ConflictKind::DirectoryInTheWay { blocking } => write!(
                f,
                "{path}: the directory holds {}, which no checkpoint holds",
                blocking.display()
            ),
            ConflictKind::InsideNestedRepository { repository } => write!(
                f,
                "{path}: inside the nested repository {}",
                repository.display()
            ),
            ConflictKind::TooLargeToCapture { bytes } => write!(
                f,
                "{path}: an uncaptured file of {bytes} bytes would be overwritten"
            ),
            ConflictKind::NotCapturable => {
                write!(f, "{path}: an uncaptured file would be overwritten")
            }
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Paths the target lacks.
    pub deletes: Vec<PathBuf>,
    /// Paths whose type changes (file, symlink); removed before being written.
    pub replaces: Vec<PathBuf>,
    pub writes: Vec<Change>,
    /// Existing files the current snapshot lacks and the restore would overwrite.
    pub capture: Vec<PathBuf>,
    /// Directories (holding only deleted files) that must go so a file can take their place.
    pub clear_dirs: Vec<PathBuf>,
    pub conflicts: Vec<Conflict>,
}

/// `diff-tree` between `from` and `to`, target side of every change.
pub(super) fn changes(repo: &Repo, from: &str, to: &str) -> Result<Vec<Change>, GitError> {
    let out = repo
        .git()
        .args(["diff-tree", "-r", "-z", "--no-renames", from, to])
        .run_bytes()?;
    let mut records = split_nul(&out);
    let mut changes = Vec::new();
    while let Some(header) = records.next() {
        let Some(path) = records.next() else { break };
        let header = String::from_utf8_lossy(header);
        let mut fields = header.trim_start_matches(':').split(' ');
        let (Some(old_mode), Some(new_mode), Some(_old_oid), Some(new_oid)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        changes.push(Change {
            old_mode: u32::from_str_radix(old_mode, 8).unwrap_or(0),
            new_mode: u32::from_str_radix(new_mode, 8).unwrap_or(0),
            new_oid: new_oid.to_owned(),
            path: path_from_bytes(path),
        });
    }
    Ok(changes)
}

pub(super) fn plan(root: &Path, changes: Vec<Change>, max_capture_bytes: u64) -> Plan {
    let mut plan = Plan::default();
    for change in &changes {
        // Gitlinks are directories salve never removes.
        if change.old_mode == 0 || change.old_mode == GITLINK {
            continue;
        }
        if change.new_mode == 0 {
            plan.deletes.push(change.path.clone());
        } else if kind(change.old_mode) != kind(change.new_mode) {
            // A file becoming a symlink (or the reverse) is removed first, then written.
            plan.replaces.push(change.path.clone());
        }
    }
    let deleted: HashSet<&Path> = plan
        .deletes
        .iter()
        .chain(&plan.replaces)
        .map(PathBuf::as_path)
        .collect();
    let mut capture = Vec::new();
    let mut clear_dirs = Vec::new();
    let mut conflicts = Vec::new();
    for change in changes.iter().filter(|c| c.new_mode != 0) {
        let mut conflict = |kind| {
            conflicts.push(Conflict {
                path: change.path.clone(),
                kind,
            })
        };
        if let Some(kind) = ancestor_conflict(root, &change.path, &deleted) {
            conflict(kind);
            continue;
        }
        if change.new_mode == GITLINK {
            continue;
        }
        let full = root.join(&change.path);
        let Ok(meta) = std::fs::symlink_metadata(&full) else {
            continue;
        };
        if meta.is_dir() {
            if is_nested_repository(&full) {
                conflict(ConflictKind::InsideNestedRepository {
                    repository: change.path.clone(),
                });
            } else if let Some(blocking) = undeleted_file_under(root, &change.path, &deleted) {
                conflict(ConflictKind::DirectoryInTheWay { blocking });
            } else {
                clear_dirs.push(change.path.clone());
            }
        } else if change.old_mode == 0 && !deleted.contains(change.path.as_path()) {
            if meta.len() > max_capture_bytes {
                conflict(ConflictKind::TooLargeToCapture { bytes: meta.len() });
            } else {
                capture.push(change.path.clone());
            }
        }
    }
    plan.writes = changes
        .into_iter()
        .filter(|c| c.new_mode != 0 && c.new_mode != GITLINK)
        .collect();
    plan.capture = capture;
    plan.clear_dirs = clear_dirs;
    plan.conflicts = conflicts;
    plan
}

/// The object type of a tree entry mode: 0o100000 file, 0o120000 symlink, 0o160000 gitlink.
fn kind(mode: u32) -> u32 {
    mode & 0o170000
}

/// A leading directory of `path` that is a file, symlink or nested repository on disk and will
/// not be deleted first.
fn ancestor_conflict(root: &Path, path: &Path, deleted: &HashSet<&Path>) -> Option<ConflictKind> {
    let mut prefix = PathBuf::new();
    let components: Vec<_> = path.components().collect();
    for component in components.iter().take(components.len().saturating_sub(1)) {
        prefix.push(component);
        let full = root.join(&prefix);
        let meta = std::fs::symlink_metadata(&full).ok()?;
        if meta.is_dir() {
            if is_nested_repository(&full) {
                return Some(ConflictKind::InsideNestedRepository { repository: prefix });
            }
            continue;
        }
        if deleted.contains(prefix.as_path()) {
            return None;
        }
        return Some(ConflictKind::FileInTheWay { blocking: prefix });
    }
    None
}

/// The first file or symlink under directory `dir` that is not about to be deleted.
fn undeleted_file_under(root: &Path, dir: &Path, deleted: &HashSet<&Path>) -> Option<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Some(dir.to_path_buf());
    };
    let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
    names.sort_by_key(|e| e.file_name());
    for entry in names {
        let rel = dir.join(entry.file_name());
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            if let Some(found) = undeleted_file_under(root, &rel, deleted) {
                return Some(found);
            }
        } else if !deleted.contains(rel.as_path()) {
            return Some(rel);
        }
    }
    None
}
