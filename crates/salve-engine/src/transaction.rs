//! Atomic multi-file writes: every file of a transaction is written, or none is.
//!
//! The protocol:
//! 1. **Verify**: every file is still as it was read (same size and modification time) and every
//!    file to be created is still absent, so a concurrent edit is never overwritten. Temporary
//!    files that a killed earlier run left in the directories about to be written are cleared
//!    (see [`leftovers`]).
//! 2. **Prepare**: each new content goes to a temporary file in the target's own directory
//!    (created if needed), with the right permissions, and is fsynced. Nothing visible changed
//!    yet; a failure here just drops the temporary files.
//! 3. **Commit**: each original is kept open before its temporary file is renamed over it, so a
//!    reader always sees the old or the new file, never a half-written one. Deletions come last.
//!    If any step fails, every step already taken is undone from the kept originals.
//! 4. **Finish**: the touched directories are fsynced and the kept originals closed.
//!
//! Originals are kept as open handles rather than as second names on disk: a process killed
//! mid-commit (no rollback can run then) leaves every file old or new and no backups behind. The
//! only thing such a kill can leave is a temporary file holding new content that was never put
//! in place, under a recognisable name ([`TEMP_PREFIX`]) that the next transaction writing into
//! that directory removes. [`hooks`] lets tests kill a commit between writes to check this.

pub mod content;
pub mod hooks;
pub mod leftovers;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::fs::{self, File, Permissions};
use std::io::{self, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use content::{Content, SharedText};
use hooks::Hooks;
use leftovers::TempName;
pub use leftovers::{sweep_files, sweep_leftovers, sweep_tree, TEMP_PREFIX};

/// Enough of a file's metadata to notice that someone else changed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    len: u64,
    modified: Option<SystemTime>,
}

impl Fingerprint {
    pub fn of(meta: &fs::Metadata) -> Fingerprint {
        Fingerprint {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// What must hold on disk before a step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Nothing exists at the path.
    Absent,
    /// The file is as it was when read.
    Unchanged(Fingerprint),
}

/// One change of a transaction.
#[derive(Clone, Debug)]
pub enum Op {
    /// Write `content` to `path`. `mode` is the permission bits to give the file; `None` means
    /// the default for a new file (0666 less the umask).
    Write {
        path: PathBuf,
        content: Content,
        mode: Option<u32>,
        expect: Expect,
    },
    /// Remove the file at `path`.
    Delete { path: PathBuf, expect: Expect },
}

impl Op {
    pub fn path(&self) -> &Path {
        match self {
            Op::Write { path, .. } | Op::Delete { path, .. } => path,
        }
    }
}

/// A write that failed. The tree was restored to its state before the transaction unless
/// `rolled_back` is false, in which case `message` says what may be left over.
#[derive(Debug, thiserror::Error)]
#[error("{action} {}: {source}{}", path.display(), if *rolled_back { "" } else { " (rollback incomplete: check the files named above)" })]
pub struct TransactionError {
    pub action: &'static str,
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
    pub rolled_back: bool,
}

impl TransactionError {
    /// Stopped by the user (Ctrl-C) at a safe point, rather than failed.
    pub fn is_interrupted(&self) -> bool {
        self.source.kind() == io::ErrorKind::Interrupted
    }
}

/// A set of changes to write together.
#[derive(Debug, Default)]
pub struct Transaction {
    ops: Vec<Op>,
    /// When set, directories left empty by deletions are removed up to (not including) it.
    root: Option<PathBuf>,
    /// Checked at the safe points: before anything is replaced, and between two writes.
    cancel: crate::interrupt::Cancel,
}

/// A step already taken during commit, with what undoes it.
enum Done {
    /// A file was replaced; the original is still readable through `original`.
    Replaced { path: PathBuf, original: Kept },
    /// A file was created where nothing was.
    Created { path: PathBuf },
    /// A file was deleted; the original is still readable through `original`.
    Deleted { path: PathBuf, original: Kept },
}

/// An original, kept so a failed commit can put it back.
enum Kept {
    /// An open handle: the content stays readable after the name is replaced or removed, and
    /// it vanishes with the process.
    File(File),
    /// A symbolic link, kept as its target.
    #[cfg(unix)]
    Symlink(PathBuf),
}

impl Transaction {
    pub fn new() -> Self {
        Transaction::default()
    }

    /// A transaction that removes directories emptied by its deletions, below `root`, as git
    /// does.
    pub fn within(root: &Path) -> Self {
        Transaction {
            ops: Vec::new(),
            root: Some(root.to_path_buf()),
            cancel: crate::interrupt::Cancel::default(),
        }
    }

    /// Stop at the safe points when `cancel` is raised (as well as on the process's own stop).
    pub fn with_cancel(mut self, cancel: crate::interrupt::Cancel) -> Self {
        self.cancel = cancel;
        self
    }

    pub fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Remove the temporary files that killed salve processes left in the directories this
    /// transaction writes into, and return their paths. [`Transaction::commit`] does this
    /// itself; a caller that snapshots the tree before committing calls it first, so the
    /// snapshot does not hold them.
    pub fn sweep_leftovers(&self) -> Vec<PathBuf> {
        let dirs: BTreeSet<PathBuf> = self.ops.iter().map(|op| parent_of(op.path())).collect();
        dirs.iter().flat_map(|d| sweep_leftovers(d)).collect()
    }

    /// Write everything or nothing. Returns the paths written or deleted, in order.
    pub fn commit(self) -> Result<Vec<PathBuf>, TransactionError> {
        for op in &self.ops {
            verify(op)?;
        }
        self.sweep_leftovers();
        let hooks = Hooks::from_env();
        // Ctrl-C while the temporary files are written waits for this point, where dropping
        // them removes them and nothing has been replaced yet.
        let _guard = crate::interrupt::guard();
        if self.cancel.requested() {
            return Err(interrupted(&self.ops));
        }
        let mut created_dirs = Vec::new();
        let prepared = match prepare(&self.ops, &mut created_dirs) {
            Ok(p) if self.cancel.requested() => {
                drop(p);
                remove_dirs(&created_dirs);
                return Err(interrupted(&self.ops));
            }
            Ok(p) => p,
            Err(e) => {
                remove_dirs(&created_dirs);
                return Err(e);
            }
        };
        let mut done: Vec<Done> = Vec::new();
        let mut touched_dirs: Vec<PathBuf> = Vec::new();
        let result = commit_steps(
            &self.ops,
            prepared,
            &mut done,
            &mut touched_dirs,
            (&hooks, &self.cancel),
        );
        if let Err(mut e) = result {
            e.rolled_back = rollback(done);
            remove_dirs(&created_dirs);
            return Err(e);
        }
        for dir in dedup(touched_dirs) {
            sync_dir(&dir);
        }
        // Closes the kept originals; the replaced and deleted ones are gone from disk now.
        drop(done);
        if let Some(root) = &self.root {
            for op in &self.ops {
                if let Op::Delete { path, .. } = op {
                    prune_empty_dirs(root, path);
                }
            }
        }
        Ok(self.ops.iter().map(|op| op.path().to_path_buf()).collect())
    }
}

/// The error of a transaction stopped by Ctrl-C before it replaced anything.
fn interrupted(ops: &[Op]) -> TransactionError {
    interrupted_before_writing(ops.first().map(|op| op.path()).unwrap_or(Path::new("")))
}

/// The error of work stopped by Ctrl-C before it replaced anything under `path`.
pub fn interrupted_before_writing(path: &Path) -> TransactionError {
    TransactionError {
        action: "interrupted before writing",
        path: path.to_path_buf(),
        source: io::Error::new(
            io::ErrorKind::Interrupted,
            "stopped by the user; nothing written",
        ),
        rolled_back: true,
    }
}

fn fail(action: &'static str, path: &Path, source: io::Error) -> TransactionError {
    TransactionError {
        action,
        path: path.to_path_buf(),
        source,
        rolled_back: true,
    }
}

fn verify(op: &Op) -> Result<(), TransactionError> {
    let (path, expect) = match op {
        Op::Write { path, expect, .. } | Op::Delete { path, expect } => (path, expect),
    };
    let meta = fs::symlink_metadata(path);
    let ok = match (expect, &meta) {
        (Expect::Absent, Err(e)) => e.kind() == io::ErrorKind::NotFound,
        (Expect::Absent, Ok(_)) => false,
        (Expect::Unchanged(fp), Ok(m)) => Fingerprint::of(m) == *fp,
        (Expect::Unchanged(_), Err(_)) => false,
    };
    if ok {
        Ok(())
    } else {
        Err(fail(
            "refusing to write",
            path,
            io::Error::other(
                "the file changed on disk while salve was working; nothing was written",
            ),
        ))
    }
}

fn prepare(
    ops: &[Op],
    created_dirs: &mut Vec<PathBuf>,
) -> Result<Vec<Option<tempfile::NamedTempFile>>, TransactionError> {
    let mut prepared = Vec::with_capacity(ops.len());
    for op in ops {
        let Op::Write {
            path,
            content,
            mode,
            ..
        } = op
        else {
            prepared.push(None);
            continue;
        };
        let parent = parent_of(path);
        create_dirs(&parent, created_dirs).map_err(|e| fail("creating directory for", path, e))?;
        let temp = write_temp(&parent, path, content, *mode)
            .map_err(|e| fail("writing a temporary file for", path, e))?;
        prepared.push(Some(temp));
    }
    Ok(prepared)
}

fn write_temp(
    dir: &Path,
    path: &Path,
    content: &Content,
    mode: Option<u32>,
) -> io::Result<tempfile::NamedTempFile> {
    let name = TempName::for_target(path);
    let mut builder = name.builder();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // 0666 at creation lets the umask decide for new files, as any editor would.
        builder.permissions(Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    content.write_to(&mut temp)?;
    if let Some(mode) = mode {
        set_mode(temp.as_file(), mode)?;
    }
    temp.as_file().sync_all()?;
    Ok(temp)
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
    Ok(())
}

fn commit_steps(
    ops: &[Op],
    prepared: Vec<Option<tempfile::NamedTempFile>>,
    done: &mut Vec<Done>,
    touched_dirs: &mut Vec<PathBuf>,
    (hooks, cancel): (&Hooks, &crate::interrupt::Cancel),
) -> Result<(), TransactionError> {
    hooks.after_writes(0);
    // Writes first, deletions last: a rename's new file exists before its old one goes.
    for (op, temp) in ops.iter().zip(prepared) {
        let (Op::Write { path, expect, .. }, Some(temp)) = (op, temp) else {
            continue;
        };
        touched_dirs.push(parent_of(path));
        stop_if_interrupted(path, cancel)?;
        if *expect == Expect::Absent {
            hooks.before_write(done.len());
            // Persisting without overwrite fails if something appeared meanwhile.
            temp.persist_noclobber(path)
                .map_err(|e| fail("creating", path, e.error))?;
            done.push(Done::Created { path: path.clone() });
        } else {
            let original = keep(path).map_err(|e| fail("keeping the original of", path, e))?;
            hooks.before_write(done.len());
            temp.persist(path)
                .map_err(|e| fail("replacing", path, e.error))?;
            done.push(Done::Replaced {
                path: path.clone(),
                original,
            });
        }
        hooks.after_writes(done.len());
    }
    for op in ops {
        let Op::Delete { path, .. } = op else {
            continue;
        };
        touched_dirs.push(parent_of(path));
        stop_if_interrupted(path, cancel)?;
        let original = keep(path).map_err(|e| fail("deleting", path, e))?;
        hooks.before_write(done.len());
        fs::remove_file(path).map_err(|e| fail("deleting", path, e))?;
        done.push(Done::Deleted {
            path: path.clone(),
            original,
        });
        hooks.after_writes(done.len());
    }
    Ok(())
}

/// Ctrl-C between two writes: stop here, and the caller's rollback puts back what was written.
fn stop_if_interrupted(
    path: &Path,
    cancel: &crate::interrupt::Cancel,
) -> Result<(), TransactionError> {
    if cancel.requested() {
        return Err(fail(
            "interrupted before writing",
            path,
            io::Error::new(io::ErrorKind::Interrupted, "stopped by the user"),
        ));
    }
    Ok(())
}

/// Keep the original at `path` so it can be put back: regular files and symbolic links only.
fn keep(path: &Path) -> io::Result<Kept> {
    let kind = fs::symlink_metadata(path)?.file_type();
    if kind.is_symlink() {
        #[cfg(unix)]
        return Ok(Kept::Symlink(fs::read_link(path)?));
        #[cfg(not(unix))]
        return Err(io::Error::other("symbolic links cannot be replaced here"));
    }
    if !kind.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    File::open(path).map(Kept::File)
}

/// Undo committed steps, newest first. Returns whether everything was restored.
fn rollback(done: Vec<Done>) -> bool {
    let mut complete = true;
    for step in done.into_iter().rev() {
        let restored = match step {
            Done::Replaced { path, original } => put_back(&path, original, true),
            Done::Deleted { path, original } => put_back(&path, original, false),
            Done::Created { path } => fs::remove_file(&path),
        };
        complete &= restored.is_ok();
    }
    complete
}

/// Write a kept original back to `path` the same way new content goes in: a temporary file,
/// then a rename, so the rollback itself never leaves a half-written file. `replace` says
/// whether something (the new content) is at `path` now.
fn put_back(path: &Path, original: Kept, replace: bool) -> io::Result<()> {
    let dir = parent_of(path);
    let name = TempName::for_target(path);
    match original {
        Kept::File(mut file) => {
            let mut temp = name.builder().tempfile_in(&dir)?;
            file.seek(SeekFrom::Start(0))?;
            io::copy(&mut file, temp.as_file_mut())?;
            temp.as_file()
                .set_permissions(file.metadata()?.permissions())?;
            temp.as_file().sync_all()?;
            persist(temp, path, replace)
        }
        #[cfg(unix)]
        Kept::Symlink(target) => {
            let temp = name
                .builder()
                .make_in(&dir, |p| std::os::unix::fs::symlink(&target, p))?;
            persist(temp, path, replace)
        }
    }
}

fn persist<F>(temp: tempfile::NamedTempFile<F>, path: &Path, replace: bool) -> io::Result<()> {
    let placed = if replace {
        temp.persist(path)
    } else {
        temp.persist_noclobber(path)
    };
    placed.map(drop).map_err(|e| e.error)
}

fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Create `dir` and its missing ancestors, recording each one created so a failed transaction
/// can remove them again.
fn create_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut cur = Some(dir);
    while let Some(d) = cur {
        if d.as_os_str().is_empty() || fs::symlink_metadata(d).is_ok() {
            break;
        }
        missing.push(d.to_path_buf());
        cur = d.parent();
    }
    for d in missing.into_iter().rev() {
        fs::create_dir(&d)?;
        created.push(d);
    }
    Ok(())
}

fn remove_dirs(created: &[PathBuf]) {
    for d in created.iter().rev() {
        let _ = fs::remove_dir(d);
    }
}

/// Remove the directories above a deleted file that are now empty, stopping at `root`.
fn prune_empty_dirs(root: &Path, deleted: &Path) {
    let mut dir = deleted.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

fn sync_dir(dir: &Path) {
    // Directory fsync makes the renames durable; some platforms cannot open a directory, and
    // the data itself is already synced, so a failure here is not worth failing the write.
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}

fn dedup(mut dirs: Vec<PathBuf>) -> Vec<PathBuf> {
    dirs.sort();
    dirs.dedup();
    dirs
}
