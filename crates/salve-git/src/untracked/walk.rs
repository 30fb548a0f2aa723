//! The walk itself: git's rules for which paths `ls-files --others --exclude-standard` lists,
//! with `--directory --no-empty-directory` collapsing at the top.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use super::patterns::{List, Stack, Unmodelled};

/// What the walk found: the collapsed listing, and every untracked path below the collapsed
/// directories (their full listing, nested repositories as `dir/`).
#[derive(Debug, Default)]
pub(super) struct Found {
    pub top: Vec<Vec<u8>>,
    pub below: Vec<Vec<u8>>,
}

pub(super) struct Walk<'a> {
    pub root: &'a Path,
    pub files: HashSet<&'a [u8]>,
    /// Every directory holding a tracked file, at any depth (`a`, `a/b`).
    pub dirs: HashSet<&'a [u8]>,
    pub stack: Stack,
}

/// One directory entry, as git's walk classifies it.
enum Kind {
    Dir,
    File,
    Other,
}

impl Walk<'_> {
    /// Walk the whole work tree.
    pub fn run(mut self) -> Result<Found, Unmodelled> {
        let mut found = Found::default();
        self.tracked_dir(&[], &mut found)?;
        Ok(found)
    }

    /// A directory that holds tracked files (or the root): untracked directories in it are
    /// collapsed to `dir/` when they hold something.
    fn tracked_dir(&mut self, dir: &[u8], found: &mut Found) -> Result<(), Unmodelled> {
        let pushed = self.enter(dir)?;
        for (path, kind) in self.entries(dir)? {
            match kind {
                Kind::Other => {}
                Kind::File => {
                    if !self.files.contains(path.as_slice()) && !self.stack.excluded(&path, false) {
                        found.top.push(path);
                    }
                }
                Kind::Dir => {
                    if self.stack.excluded(&path, true) {
                        continue;
                    }
                    // git drops a `dir/` record whose name the index holds as a file (a
                    // tracked file replaced by a directory); what is inside still counts
                    // without `--directory`.
                    let listed = !self.files.contains(path.as_slice());
                    if self.dirs.contains(path.as_slice()) {
                        self.tracked_dir(&path, found)?;
                    } else if nested_repository(&self.root.join(as_path(&path)))? {
                        if listed {
                            found.top.push(with_slash(path));
                        }
                    } else {
                        let mut inside = Vec::new();
                        self.untracked_dir(&path, &mut inside)?;
                        if !inside.is_empty() && listed {
                            found.top.push(with_slash(path));
                        }
                        found.below.append(&mut inside);
                    }
                }
            }
        }
        self.leave(pushed);
        Ok(())
    }

    /// A directory with no tracked file below it: everything untracked in it, recursively.
    fn untracked_dir(&mut self, dir: &[u8], out: &mut Vec<Vec<u8>>) -> Result<(), Unmodelled> {
        let pushed = self.enter(dir)?;
        for (path, kind) in self.entries(dir)? {
            match kind {
                Kind::Other => {}
                Kind::File => {
                    if !self.stack.excluded(&path, false) {
                        out.push(path);
                    }
                }
                Kind::Dir => {
                    if self.stack.excluded(&path, true) {
                        continue;
                    }
                    if nested_repository(&self.root.join(as_path(&path)))? {
                        out.push(with_slash(path));
                    } else {
                        self.untracked_dir(&path, out)?;
                    }
                }
            }
        }
        self.leave(pushed);
        Ok(())
    }

    /// Read `dir`'s `.gitignore`, if any, onto the stack.
    fn enter(&mut self, dir: &[u8]) -> Result<bool, Unmodelled> {
        let base = if dir.is_empty() {
            Vec::new()
        } else {
            with_slash(dir.to_vec())
        };
        let file = self.root.join(as_path(&base)).join(".gitignore");
        let meta = match std::fs::symlink_metadata(&file) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(_) => return Err(Unmodelled),
        };
        // git refuses to follow a symlinked `.gitignore` and warns; left to git.
        if !meta.is_file() {
            return Err(Unmodelled);
        }
        let bytes = std::fs::read(&file).map_err(|_| Unmodelled)?;
        self.stack.dirs.push(List::parse(&base, &bytes)?);
        Ok(true)
    }

    fn leave(&mut self, pushed: bool) {
        if pushed {
            self.stack.dirs.pop();
        }
    }

    /// `dir`'s entries as paths from the root, `.git` left out as git leaves it out.
    fn entries(&self, dir: &[u8]) -> Result<Vec<(Vec<u8>, Kind)>, Unmodelled> {
        let full = self.root.join(as_path(dir));
        let read = std::fs::read_dir(&full).map_err(|_| Unmodelled)?;
        let mut out = Vec::new();
        for entry in read {
            let entry = entry.map_err(|_| Unmodelled)?;
            let name = entry.file_name();
            if name.as_bytes() == b".git" {
                continue;
            }
            let kind = match entry.file_type() {
                Ok(t) if t.is_dir() => Kind::Dir,
                Ok(t) if t.is_file() || t.is_symlink() => Kind::File,
                Ok(_) => Kind::Other,
                Err(_) => return Err(Unmodelled),
            };
            let mut path = Vec::with_capacity(dir.len() + 1 + name.len());
            if !dir.is_empty() {
                path.extend_from_slice(dir);
                path.push(b'/');
            }
            path.extend_from_slice(name.as_bytes());
            out.push((path, kind));
        }
        Ok(out)
    }
}

fn as_path(bytes: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(bytes))
}

fn with_slash(mut path: Vec<u8>) -> Vec<u8> {
    path.push(b'/');
    path
}

/// Whether git takes `dir` for a repository of its own. Modelled: no `.git` (no), and a `.git`
/// directory as `git init` makes it (a `HEAD` naming a ref or holding an object id, `objects`
/// and `refs` directories, no `commondir`): yes; a `.git` directory without `HEAD`: no. Any
/// other `.git` (a file pointing elsewhere, a symlink, an odd `HEAD`) is left to git.
pub(super) fn nested_repository(dir: &Path) -> Result<bool, Unmodelled> {
    let dot_git = dir.join(".git");
    let meta = match std::fs::symlink_metadata(&dot_git) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(_) => return Err(Unmodelled),
    };
    if !meta.is_dir() {
        return Err(Unmodelled);
    }
    if std::fs::symlink_metadata(dot_git.join("commondir")).is_ok() {
        return Err(Unmodelled);
    }
    let head = dot_git.join("HEAD");
    match std::fs::symlink_metadata(&head) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(_) => return Err(Unmodelled),
        Ok(meta) if !meta.is_file() => return Err(Unmodelled),
        Ok(_) => {}
    }
    let text = std::fs::read(&head).map_err(|_| Unmodelled)?;
    let names_ref = text.starts_with(b"ref: refs/");
    let holds_id = text.len() >= 40 && text[..40].iter().all(u8::is_ascii_hexdigit);
    if !names_ref && !holds_id {
        return Err(Unmodelled);
    }
    let is_dir = |name: &str| std::fs::symlink_metadata(dot_git.join(name)).map(|m| m.is_dir());
    match (is_dir("objects"), is_dir("refs")) {
        (Ok(true), Ok(true)) => Ok(true),
        _ => Err(Unmodelled),
    }
}
