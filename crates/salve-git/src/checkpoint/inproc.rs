//! A checkpoint's two trees built in process: what `write-tree` of the user's index and
//! `add -A` + `write-tree` of a copy of it would give, without those git processes.
//!
//! The staged tree comes from the index entries as they are. For the work tree, each tracked
//! file whose stat data still matches its index entry keeps the entry's blob (git's own stat
//! cache; an entry not older than the index file is "racily clean" and re-read, as git does);
//! any other file is read and hashed, and a blob written if the store lacks it. Untracked
//! files come from the scan. Trees are hashed bottom-up and written when missing.
//!
//! It runs only where the bytes git would store are the bytes on disk (see `probe`); when the
//! index holds something this reader leaves to git, or a path is neither a file nor a symlink,
//! [`trees`] answers `None` and the caller asks git.

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::checkpoint::options::Options;
use crate::checkpoint::probe;
use crate::checkpoint::scan::Scan;
use crate::cmd::GitError;
use crate::index::{self, Entry};
use crate::odb::{tree_content, Kind, Odb, TreeEntry};
use crate::path::path_from_bytes;
use crate::repo::Repo;

/// Past this many index entries git's parallel stat of the work tree wins; leave it to git.
const MAX_ENTRIES: usize = 20_000;

/// The work tree's tree and the staged state's tree.
pub(super) struct Trees {
    pub tree: String,
    pub index_tree: String,
    /// Those of the options' forced paths that the work tree's tree holds.
    pub held: Vec<std::path::PathBuf>,
}

/// One file of a tree being built: its path from the root, mode and blob.
type File = (Vec<u8>, &'static str, String);

/// Both trees, or `None` when git must build them.
/// `index` is the user's index as [`index::read`] gave it.
pub(super) fn trees(
    repo: &Repo,
    odb: &Odb,
    scan: &Scan,
    options: &Options,
    index: Option<&index::Index>,
) -> Result<Option<Trees>, GitError> {
    if !odb.writes_in_process() || !probe::config_allows(repo)? {
        return Ok(None);
    }
    let Some(index) = index else {
        return Ok(None);
    };
    if index.entries.len() > MAX_ENTRIES {
        return Ok(None);
    }
    let untracked = scan.included();
    let attributes = index
        .entries
        .iter()
        .map(|e| path_from_bytes(&e.path))
        .chain(untracked.iter().map(|p| p.to_path_buf()))
        .filter(|p| p.file_name().is_some_and(|n| n == ".gitattributes"));
    for file in attributes {
        let full = repo.root.join(&file);
        if !full.exists() || !probe::attributes_allow(&full) {
            return Ok(None);
        }
    }

    let staged: Vec<File> = index
        .entries
        .iter()
        .filter_map(|e| Some((e.path.clone(), index::entry_mode(e.mode)?, e.id.clone())))
        .collect();
    let mut reader = Reader {
        root: &repo.root,
        odb,
        dirs: HashMap::new(),
    };
    let mut files = Vec::with_capacity(staged.len() + untracked.len());
    for entry in &index.entries {
        let skipped_name = has_skipped_name(&entry.path, &options.skip_name_prefixes);
        match reader.tracked(entry, index.mtime, skipped_name)? {
            Read::File(mode, id) => files.push((entry.path.clone(), mode, id)),
            Read::Gone => {}
            Read::AskGit => return Ok(None),
        }
    }
    let forced = options.force_paths.iter().map(|p| p.as_path());
    let mut extra: Vec<&Path> = untracked
        .into_iter()
        .filter(|p| !has_skipped_name(p.as_os_str().as_bytes(), &options.skip_name_prefixes))
        .chain(forced)
        .collect();
    extra.sort();
    extra.dedup();
    let tracked: std::collections::HashSet<Vec<u8>> =
        files.iter().map(|(p, _, _)| p.clone()).collect();
    for path in extra {
        let bytes = path.as_os_str().as_bytes();
        if tracked.contains(bytes) {
            continue;
        }
        match reader.untracked(path)? {
            Read::File(mode, id) => files.push((bytes.to_vec(), mode, id)),
            Read::Gone => {}
            Read::AskGit => return Ok(None),
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let held = options
        .force_paths
        .iter()
        .filter(|p| {
            let bytes = p.as_os_str().as_bytes();
            files
                .binary_search_by(|(path, _, _)| path.as_slice().cmp(bytes))
                .is_ok()
        })
        .cloned()
        .collect();
    Ok(Some(Trees {
        tree: build(odb, &files, 0)?,
        index_tree: build(odb, &staged, 0)?,
        held,
    }))
}

/// True when the file name (last component) of `path` starts with one of `prefixes`.
fn has_skipped_name(path: &[u8], prefixes: &[String]) -> bool {
    let name = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
    prefixes.iter().any(|p| name.starts_with(p.as_bytes()))
}

enum Read {
    File(&'static str, String),
    Gone,
    AskGit,
}

struct Reader<'a> {
    root: &'a Path,
    odb: &'a Odb,
    /// Directory → whether it is a real directory (not a symlink, not missing).
    dirs: HashMap<Vec<u8>, bool>,
}

impl Reader<'_> {
    /// A tracked file as `add -A` would record it.
    fn tracked(
        &mut self,
        entry: &Entry,
        index_mtime: (u32, u32),
        keep: bool,
    ) -> Result<Read, GitError> {
        let Some(mode) = index::entry_mode(entry.mode) else {
            return Ok(Read::AskGit);
        };
        // A path excluded by name keeps its index entry, as an excluding pathspec does.
        if keep {
            return Ok(Read::File(mode, entry.id.clone()));
        }
        if !self.leading_dirs_are_real(&entry.path) {
            return Ok(Read::Gone);
        }
        let full = self.root.join(path_from_bytes(&entry.path));
        let meta = match std::fs::symlink_metadata(&full) {
            Ok(meta) => meta,
            Err(e) if is_gone(&e) => return Ok(Read::Gone),
            Err(e) => return Err(GitError::io(format!("reading {}", full.display()), e)),
        };
        if meta.is_dir() {
            // A directory now stands where the file was. The scan's collapsed listing does not
            // show what is in it, `add -A` does: leave this one to git.
            return Ok(Read::AskGit);
        }
        let Some(now_mode) = mode_of(&meta) else {
            return Ok(Read::AskGit);
        };
        let stat = entry.stat;
        let unchanged = now_mode == mode
            && stat.mtime == (meta.mtime() as u32, meta.mtime_nsec() as u32)
            && stat.ctime == (meta.ctime() as u32, meta.ctime_nsec() as u32)
            && stat.ino == meta.ino() as u32
            && stat.uid == meta.uid()
            && stat.gid == meta.gid()
            && stat.size == meta.size() as u32
            && stat.mtime < index_mtime;
        if unchanged {
            return Ok(Read::File(mode, entry.id.clone()));
        }
        self.hash(&full, &meta, now_mode)
    }

    /// An untracked (or forced) file.
    fn untracked(&mut self, path: &Path) -> Result<Read, GitError> {
        if !self.leading_dirs_are_real(path.as_os_str().as_bytes()) {
            return Ok(Read::AskGit);
        }
        let full = self.root.join(path);
        let meta = match std::fs::symlink_metadata(&full) {
            Ok(meta) => meta,
            // Gone since the scan listed it, as it would be for `add -A` a moment later.
            Err(e) if is_gone(&e) => return Ok(Read::Gone),
            Err(e) => return Err(GitError::io(format!("reading {}", full.display()), e)),
        };
        match mode_of(&meta) {
            Some(mode) => self.hash(&full, &meta, mode),
            None => Ok(Read::AskGit),
        }
    }

    fn hash(
        &self,
        full: &Path,
        meta: &std::fs::Metadata,
        mode: &'static str,
    ) -> Result<Read, GitError> {
        let bytes = if meta.file_type().is_symlink() {
            std::fs::read_link(full).map(|t| t.as_os_str().as_bytes().to_vec())
        } else {
            std::fs::read(full)
        };
        match bytes {
            Ok(bytes) => Ok(Read::File(mode, self.odb.write(Kind::Blob, &bytes)?)),
            Err(e) if is_gone(&e) => Ok(Read::Gone),
            Err(e) => Err(GitError::io(format!("reading {}", full.display()), e)),
        }
    }

    /// True when every directory above `path` is a real directory, as git checks before
    /// trusting a path (a symlink to a directory does not hold tracked files).
    fn leading_dirs_are_real(&mut self, path: &[u8]) -> bool {
        let mut end = 0;
        while let Some(slash) = path[end..].iter().position(|b| *b == b'/') {
            end += slash;
            let dir = &path[..end];
            let real = match self.dirs.get(dir) {
                Some(real) => *real,
                None => {
                    let full = self.root.join(path_from_bytes(dir));
                    let real = std::fs::symlink_metadata(full).is_ok_and(|m| m.is_dir());
                    self.dirs.insert(dir.to_vec(), real);
                    real
                }
            };
            if !real {
                return false;
            }
            end += 1;
        }
        true
    }
}

fn is_gone(e: &std::io::Error) -> bool {
    // ENOTDIR: a file now stands where a directory of the path was.
    e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(20)
}

/// The tree mode git records for what is on disk; `None` for anything but files and symlinks.
fn mode_of(meta: &std::fs::Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_symlink() {
        Some("120000")
    } else if kind.is_file() {
        Some(if meta.mode() & 0o100 != 0 {
            "100755"
        } else {
            "100644"
        })
    } else {
        None
    }
}

/// The tree of `files` (sorted by path, paths from the root) below the first `depth` bytes
/// of their paths; writes every tree object the store lacks.
fn build(odb: &Odb, files: &[File], depth: usize) -> Result<String, GitError> {
    let mut entries = Vec::new();
    let mut i = 0;
    while i < files.len() {
        let (path, mode, id) = &files[i];
        let rest = &path[depth..];
        match rest.iter().position(|b| *b == b'/') {
            None => {
                entries.push(TreeEntry {
                    mode,
                    name: rest.to_vec(),
                    id: id.clone(),
                });
                i += 1;
            }
            Some(slash) => {
                let prefix = &path[..depth + slash + 1];
                let end = i + files[i..]
                    .iter()
                    .take_while(|(p, _, _)| p.starts_with(prefix))
                    .count();
                entries.push(TreeEntry {
                    mode: "40000",
                    name: rest[..slash].to_vec(),
                    id: build(odb, &files[i..end], prefix.len())?,
                });
                i = end;
            }
        }
    }
    let content = tree_content(&mut entries).ok_or_else(|| GitError::Failed {
        args: "write-tree (in process)".to_owned(),
        code: -1,
        stderr: "an object id is not hexadecimal".to_owned(),
    })?;
    odb.write(Kind::Tree, &content)
}
