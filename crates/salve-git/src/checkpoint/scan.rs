//! Which untracked paths a checkpoint leaves out, and why.
//!
//! The untracked listing (`crate::untracked`: in process with git's answer where git's rules are
//! modelled, else `git ls-files`) gives untracked, non-ignored paths, collapsing directories
//! that hold no tracked file into one `dir/` entry. Such a directory is either a nested
//! repository (left alone entirely) or an untracked directory; only those are looked into, so a
//! large tracked tree costs nothing here.
//! Inside untracked directories, sub-directories are judged bottom-up: one whose remaining content
//! is over the limits is skipped whole, and what is left counts toward its parent. Loose untracked
//! files over the size limit are skipped one by one. Skips become `:(exclude)` pathspecs for
//! `git add -A`, so only untracked paths are ever excluded and tracked files are always captured.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use crate::cmd::GitError;
use crate::path::path_from_bytes;
use crate::repo::{is_nested_repository, Repo};

use super::options::{Limits, SkipReason, Skipped};

/// The result of a scan: what to exclude from `git add -A`, the report for the user, and the
/// untracked files that are not excluded (what `add -A` would bring in).
#[derive(Debug, Default)]
pub(super) struct Scan {
    pub excludes: Vec<PathBuf>,
    pub skipped: Vec<Skipped>,
    /// Every untracked, non-ignored file seen, excluded ones included; see [`Scan::included`].
    seen: Vec<PathBuf>,
}

impl Scan {
    /// The untracked files a snapshot takes: those seen, minus the excluded paths and
    /// everything under an excluded directory.
    pub fn included(&self) -> Vec<&Path> {
        let excluded: HashSet<&Path> = self.excludes.iter().map(PathBuf::as_path).collect();
        self.seen
            .iter()
            .map(PathBuf::as_path)
            .filter(|file| !file.ancestors().any(|a| excluded.contains(a)))
            .collect()
    }

    /// Every file seen whose name starts with one of `prefixes`.
    pub fn named(&self, prefixes: &[String]) -> Vec<PathBuf> {
        self.seen
            .iter()
            .filter(|file| {
                file.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| prefixes.iter().any(|p| n.starts_with(p.as_str())))
            })
            .cloned()
            .collect()
    }

    fn skip(&mut self, path: PathBuf, reason: SkipReason) {
        self.excludes.push(path.clone());
        self.skipped.push(Skipped { path, reason });
    }
}

pub(super) fn untracked(repo: &Repo, limits: &Limits) -> Result<Scan, GitError> {
    let mut scan = Scan::default();
    let listing = crate::untracked::list(repo)?;
    let mut roots = Vec::new();
    for record in &listing.top {
        if let Some(dir) = record.strip_suffix(b"/") {
            let dir = path_from_bytes(dir);
            if is_nested_repository(&repo.root.join(&dir)) {
                scan.skip(dir, SkipReason::NestedRepository);
            } else {
                roots.push(dir);
            }
        } else {
            let file = path_from_bytes(record);
            let bytes = size_of(&repo.root.join(&file));
            if bytes > limits.max_file_bytes {
                scan.skip(file.clone(), SkipReason::TooLarge { bytes });
            }
            scan.seen.push(file);
        }
    }
    if !roots.is_empty() {
        let below = listing.below(repo, &roots)?;
        judge_directories(repo, &roots, &below, limits, &mut scan);
    }
    Ok(scan)
}

/// Direct content of one directory: file count and bytes.
#[derive(Clone, Copy, Default)]
struct Tally {
    files: u64,
    bytes: u64,
}

fn judge_directories(
    repo: &Repo,
    roots: &[PathBuf],
    listing: &[Vec<u8>],
    limits: &Limits,
    scan: &mut Scan,
) {
    let root_set: HashSet<&Path> = roots.iter().map(PathBuf::as_path).collect();
    let mut direct: BTreeMap<PathBuf, Tally> = BTreeMap::new();
    for root in roots {
        direct.entry(root.clone()).or_default();
    }
    for record in listing {
        if let Some(dir) = record.strip_suffix(b"/") {
            // Inside an untracked directory git still stops at nested repositories.
            scan.skip(path_from_bytes(dir), SkipReason::NestedRepository);
            continue;
        }
        let file = path_from_bytes(record);
        scan.seen.push(file.clone());
        let bytes = size_of(&repo.root.join(&file));
        if bytes > limits.max_file_bytes {
            scan.skip(file, SkipReason::TooLarge { bytes });
            continue;
        }
        let Some(parent) = file.parent() else {
            continue;
        };
        // Register every directory between the file and its root so totals can flow upward.
        let mut dir = parent.to_path_buf();
        let tally = direct.entry(dir.clone()).or_default();
        tally.files += 1;
        tally.bytes += bytes;
        while !root_set.contains(dir.as_path()) {
            match dir.parent() {
                Some(up) if !up.as_os_str().is_empty() => {
                    dir = up.to_path_buf();
                    direct.entry(dir.clone()).or_default();
                }
                _ => break,
            }
        }
    }
    let mut dirs: Vec<PathBuf> = direct.keys().cloned().collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    let mut carried: BTreeMap<PathBuf, Tally> = BTreeMap::new();
    for dir in dirs {
        let own = direct.get(&dir).copied().unwrap_or_default();
        let below = carried.remove(&dir).unwrap_or_default();
        let total = Tally {
            files: own.files + below.files,
            bytes: own.bytes + below.bytes,
        };
        if total.files > limits.max_dir_files || total.bytes > limits.max_dir_bytes {
            scan.skip(
                dir,
                SkipReason::LargeDirectory {
                    files: total.files,
                    bytes: total.bytes,
                },
            );
            continue;
        }
        if root_set.contains(dir.as_path()) {
            continue;
        }
        if let Some(parent) = dir.parent() {
            let up = carried.entry(parent.to_path_buf()).or_default();
            up.files += total.files;
            up.bytes += total.bytes;
        }
    }
}

fn size_of(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).map_or(0, |m| m.len())
}
