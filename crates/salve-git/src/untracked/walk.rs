//! The walk itself: git's rules for which paths `ls-files --others --exclude-standard` lists,
//! with `--directory --no-empty-directory` collapsing at the top.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use rustix::fs::{self, AtFlags, FileType, Mode, OFlags};

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
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Other,
}

/// A directory being read: its descriptor (children are opened relative to it, which spares
/// the kernel a lookup of the whole path each time) and its entries.
struct Opened {
    dir: fs::Dir,
    entries: Vec<(Vec<u8>, Kind)>,
    /// The kind of its `.gitignore` entry, if it has one.
    ignore_file: Option<Kind>,
}

impl Walk<'_> {
    /// Walk the whole work tree.
    pub fn run(mut self) -> Result<Found, Unmodelled> {
        let mut found = Found::default();
        let root = fs::open(
            self.root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|_| Unmodelled)?;
        let opened = read(root, &[])?;
        self.tracked_dir(&[], opened, &mut found)?;
        Ok(found)
    }

    /// A directory that holds tracked files (or the root): untracked directories in it are
    /// collapsed to `dir/` when they hold something.
    fn tracked_dir(
        &mut self,
        dir: &[u8],
        opened: Opened,
        found: &mut Found,
    ) -> Result<(), Unmodelled> {
        let pushed = self.enter(dir, &opened)?;
        for (path, kind) in &opened.entries {
            let path = path.clone();
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
                        let child = open_child(&opened.dir, &path)?;
                        self.tracked_dir(&path, child, found)?;
                    } else if nested_repository(&self.root.join(as_path(&path)))? {
                        if listed {
                            found.top.push(with_slash(path));
                        }
                    } else {
                        let mut inside = Vec::new();
                        let child = open_child(&opened.dir, &path)?;
                        self.untracked_dir(&path, child, &mut inside)?;
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
    fn untracked_dir(
        &mut self,
        dir: &[u8],
        opened: Opened,
        out: &mut Vec<Vec<u8>>,
    ) -> Result<(), Unmodelled> {
        let pushed = self.enter(dir, &opened)?;
        for (path, kind) in &opened.entries {
            let path = path.clone();
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
                        let child = open_child(&opened.dir, &path)?;
                        self.untracked_dir(&path, child, out)?;
                    }
                }
            }
        }
        self.leave(pushed);
        Ok(())
    }

    /// Read `dir`'s `.gitignore`, if its listing holds one, onto the stack.
    fn enter(&mut self, dir: &[u8], opened: &Opened) -> Result<bool, Unmodelled> {
        match opened.ignore_file {
            None => return Ok(false),
            Some(Kind::File) => {}
            // git refuses to follow a symlinked `.gitignore` and warns; left to git.
            Some(_) => return Err(Unmodelled),
        }
        let fd = fs::openat(
            opened.dir.fd().map_err(|_| Unmodelled)?,
            ".gitignore",
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|_| Unmodelled)?;
        let mut bytes = Vec::new();
        std::fs::File::from(fd)
            .read_to_end(&mut bytes)
            .map_err(|_| Unmodelled)?;
        let base = if dir.is_empty() {
            Vec::new()
        } else {
            with_slash(dir.to_vec())
        };
        self.stack.dirs.push(List::parse(&base, &bytes)?);
        Ok(true)
    }

    fn leave(&mut self, pushed: bool) {
        if pushed {
            self.stack.dirs.pop();
        }
    }
}

/// Open the sub-directory `path` (its last component) of the directory `parent`, without
/// following a symlink, and read it.
fn open_child(parent: &fs::Dir, path: &[u8]) -> Result<Opened, Unmodelled> {
    let parent = parent.fd().map_err(|_| Unmodelled)?;
    let name_at = path.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1);
    let fd = fs::openat(
        parent,
        OsStr::from_bytes(&path[name_at..]),
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|_| Unmodelled)?;
    read(fd, path)
}

/// The entries of the open directory `fd` at `dir`, as paths from the root; `.git` is left
/// out as git leaves it out.
fn read(fd: OwnedFd, dir: &[u8]) -> Result<Opened, Unmodelled> {
    // `Dir::new` reads through this descriptor; `read_from` would open a second one.
    let mut listing = fs::Dir::new(fd).map_err(|_| Unmodelled)?;
    let mut entries = Vec::new();
    let mut ignore_file = None;
    while let Some(entry) = listing.read() {
        let entry = entry.map_err(|_| Unmodelled)?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." || name == b".git" {
            continue;
        }
        let raw = match entry.file_type() {
            FileType::Unknown => {
                let fd = listing.fd().map_err(|_| Unmodelled)?;
                let stat = fs::statat(fd, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(|_| Unmodelled)?;
                FileType::from_raw_mode(stat.st_mode)
            }
            known => known,
        };
        let kind = match raw {
            FileType::Directory => Kind::Dir,
            FileType::RegularFile | FileType::Symlink => Kind::File,
            _ => Kind::Other,
        };
        if name == b".gitignore" {
            // Only a regular file is read; a symlink is left to git (see `enter`).
            ignore_file = Some(if raw == FileType::RegularFile {
                Kind::File
            } else {
                Kind::Other
            });
        }
        let mut path = Vec::with_capacity(dir.len() + 1 + name.len());
        if !dir.is_empty() {
            path.extend_from_slice(dir);
            path.push(b'/');
        }
        path.extend_from_slice(name);
        entries.push((path, kind));
    }
    Ok(Opened {
        dir: listing,
        entries,
        ignore_file,
    })
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
