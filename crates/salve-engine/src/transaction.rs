//! Atomic multi-file writes: every file of a transaction is written, or none is.
//!
//! The protocol:
//! 1. **Verify**: every file is still as it was read (same size and modification time) and every
//!    file to be created is still absent, so a concurrent edit is never overwritten.
//! 2. **Prepare**: each new content goes to a temporary file in the target's own directory
//!    (created if needed), with the right permissions, and is fsynced. Nothing visible changed
//!    yet; a failure here just drops the temporary files.
//! 3. **Commit**: each original is kept aside (a hard link, or a copy where links are not
//!    supported) before its temporary file is renamed over it, so a reader always sees the old or
//!    the new file, never a half-written one. Deletions come last and move the file aside. If any
//!    step fails, every step already taken is undone from the kept originals.
//! 4. **Finish**: the touched directories are fsynced and the kept originals removed.

use std::fs::{self, File, Permissions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

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
        content: Vec<u8>,
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

/// A set of changes to write together.
#[derive(Debug, Default)]
pub struct Transaction {
    ops: Vec<Op>,
    /// When set, directories left empty by deletions are removed up to (not including) it.
    root: Option<PathBuf>,
}

/// A step already taken during commit, with what undoes it.
enum Done {
    /// A file was replaced; the original is kept at `backup`.
    Replaced { path: PathBuf, backup: PathBuf },
    /// A file was created where nothing was.
    Created { path: PathBuf },
    /// A file was moved aside to `backup` to delete it.
    Deleted { path: PathBuf, backup: PathBuf },
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
        }
    }

    pub fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Write everything or nothing. Returns the paths written or deleted, in order.
    pub fn commit(self) -> Result<Vec<PathBuf>, TransactionError> {
        for op in &self.ops {
            verify(op)?;
        }
        let mut created_dirs = Vec::new();
        let prepared = match prepare(&self.ops, &mut created_dirs) {
            Ok(p) => p,
            Err(e) => {
                remove_dirs(&created_dirs);
                return Err(e);
            }
        };
        let mut done: Vec<Done> = Vec::new();
        let mut touched_dirs: Vec<PathBuf> = Vec::new();
        let result = commit_steps(&self.ops, prepared, &mut done, &mut touched_dirs);
        if let Err(mut e) = result {
            e.rolled_back = rollback(done);
            remove_dirs(&created_dirs);
            return Err(e);
        }
        for dir in dedup(touched_dirs) {
            sync_dir(&dir);
        }
        for step in done {
            if let Done::Replaced { backup, .. } | Done::Deleted { backup, .. } = step {
                // A leftover backup is clutter, not damage; the commit already succeeded.
                let _ = fs::remove_file(backup);
            }
        }
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
    content: &[u8],
    mode: Option<u32>,
) -> io::Result<tempfile::NamedTempFile> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.salve-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // 0666 at creation lets the umask decide for new files, as any editor would.
        builder.permissions(Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(content)?;
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
) -> Result<(), TransactionError> {
    // Writes first, deletions last: a rename's new file exists before its old one goes.
    for (op, temp) in ops.iter().zip(prepared) {
        let (Op::Write { path, expect, .. }, Some(temp)) = (op, temp) else {
            continue;
        };
        touched_dirs.push(parent_of(path));
        if *expect == Expect::Absent {
            // Persisting without overwrite fails if something appeared meanwhile.
            temp.persist_noclobber(path)
                .map_err(|e| fail("creating", path, e.error))?;
            done.push(Done::Created { path: path.clone() });
        } else {
            let backup = keep_aside(path).map_err(|e| fail("keeping a copy of", path, e))?;
            if let Err(e) = temp.persist(path) {
                let _ = fs::remove_file(&backup);
                return Err(fail("replacing", path, e.error));
            }
            done.push(Done::Replaced {
                path: path.clone(),
                backup,
            });
        }
    }
    for op in ops {
        let Op::Delete { path, .. } = op else {
            continue;
        };
        touched_dirs.push(parent_of(path));
        let backup = backup_name(path).map_err(|e| fail("deleting", path, e))?;
        fs::rename(path, &backup).map_err(|e| fail("deleting", path, e))?;
        done.push(Done::Deleted {
            path: path.clone(),
            backup,
        });
    }
    Ok(())
}

/// Undo committed steps, newest first. Returns whether everything was restored.
fn rollback(done: Vec<Done>) -> bool {
    let mut complete = true;
    for step in done.into_iter().rev() {
        let restored = match step {
            Done::Replaced { path, backup } | Done::Deleted { path, backup } => {
                fs::rename(&backup, &path)
            }
            Done::Created { path } => fs::remove_file(&path),
        };
        complete &= restored.is_ok();
    }
    complete
}

/// A free name next to `path` for keeping its original.
fn backup_name(path: &Path) -> io::Result<PathBuf> {
    let dir = parent_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Reserve the name by creating it; the caller then replaces it with the original.
    let prefix = format!(".{name}.salve-orig-");
    let reserved = tempfile::Builder::new().prefix(&prefix).tempfile_in(&dir)?;
    let (_, reserved_path) = reserved.keep().map_err(|e| e.error)?;
    Ok(reserved_path)
}

/// Keep the original of `path` at a backup name: a hard link when the file system allows one
/// (no copying, same inode), else a copy.
fn keep_aside(path: &Path) -> io::Result<PathBuf> {
    let backup = backup_name(path)?;
    fs::remove_file(&backup)?;
    if fs::hard_link(path, &backup).is_err() {
        if let Err(e) = fs::copy(path, &backup) {
            let _ = fs::remove_file(&backup);
            return Err(e);
        }
    }
    Ok(backup)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(path: &Path) -> io::Result<Expect> {
        Ok(Expect::Unchanged(Fingerprint::of(&fs::symlink_metadata(
            path,
        )?)))
    }

    fn leftovers(dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name.contains(".salve-") {
                names.push(name);
            }
        }
        Ok(names)
    }

    #[test]
    fn writes_creates_and_deletes_together() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let a = dir.path().join("a.txt");
        let gone = dir.path().join("gone.txt");
        fs::write(&a, "old\n")?;
        fs::write(&gone, "bye\n")?;
        let mut tx = Transaction::new();
        tx.push(Op::Write {
            path: a.clone(),
            content: b"new\n".to_vec(),
            mode: None,
            expect: fp(&a)?,
        });
        tx.push(Op::Write {
            path: dir.path().join("sub/deep/b.txt"),
            content: b"b\n".to_vec(),
            mode: None,
            expect: Expect::Absent,
        });
        tx.push(Op::Delete {
            path: gone.clone(),
            expect: fp(&gone)?,
        });
        let written = tx.commit().map_err(io::Error::other)?;
        assert_eq!(written.len(), 3);
        let nested = dir.path().join("x/y/z.txt");
        fs::create_dir_all(dir.path().join("x/y"))?;
        fs::write(&nested, "z")?;
        let mut tx = Transaction::within(dir.path());
        tx.push(Op::Delete {
            path: nested.clone(),
            expect: fp(&nested)?,
        });
        tx.commit().map_err(io::Error::other)?;
        assert!(
            !dir.path().join("x").exists(),
            "emptied directories are pruned"
        );
        assert!(dir.path().exists());
        assert_eq!(fs::read_to_string(&a)?, "new\n");
        assert_eq!(
            fs::read_to_string(dir.path().join("sub/deep/b.txt"))?,
            "b\n"
        );
        assert!(!gone.exists());
        assert!(leftovers(dir.path())?.is_empty());
        Ok(())
    }

    #[test]
    fn a_failing_step_rolls_back_the_others() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let a = dir.path().join("a.txt");
        fs::write(&a, "original\n")?;
        // Renaming a file over a non-empty directory fails at commit time, after `a.txt` was
        // already replaced.
        let blocker = dir.path().join("blocker");
        fs::create_dir(&blocker)?;
        fs::write(blocker.join("inner"), "x")?;
        let mut tx = Transaction::new();
        tx.push(Op::Write {
            path: a.clone(),
            content: b"changed\n".to_vec(),
            mode: None,
            expect: fp(&a)?,
        });
        tx.push(Op::Write {
            path: dir.path().join("new.txt"),
            content: b"new\n".to_vec(),
            mode: None,
            expect: Expect::Absent,
        });
        tx.push(Op::Write {
            path: blocker.clone(),
            content: b"file\n".to_vec(),
            mode: None,
            expect: fp(&blocker)?,
        });
        let err = match tx.commit() {
            Ok(_) => return Err(io::Error::other("commit should fail")),
            Err(e) => e,
        };
        assert!(err.rolled_back);
        assert_eq!(err.path, blocker);
        assert_eq!(fs::read_to_string(&a)?, "original\n");
        assert!(!dir.path().join("new.txt").exists());
        assert!(leftovers(dir.path())?.is_empty());
        Ok(())
    }

    #[test]
    fn a_concurrent_change_refuses_everything() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let a = dir.path().join("a.txt");
        fs::write(&a, "one\n")?;
        let expect = fp(&a)?;
        fs::write(&a, "someone else wrote this\n")?;
        let mut tx = Transaction::new();
        tx.push(Op::Write {
            path: a.clone(),
            content: b"mine\n".to_vec(),
            mode: None,
            expect,
        });
        assert!(tx.commit().is_err());
        assert_eq!(fs::read_to_string(&a)?, "someone else wrote this\n");
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn modes_are_applied() -> io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir()?;
        let a = dir.path().join("run.sh");
        fs::write(&a, "echo\n")?;
        fs::set_permissions(&a, Permissions::from_mode(0o755))?;
        let mut tx = Transaction::new();
        tx.push(Op::Write {
            path: a.clone(),
            content: b"echo hi\n".to_vec(),
            mode: Some(0o755),
            expect: fp(&a)?,
        });
        tx.commit().map_err(io::Error::other)?;
        assert_eq!(fs::metadata(&a)?.permissions().mode() & 0o777, 0o755);
        Ok(())
    }
}
