//! Temporary index files inside salve's private directory, removed when dropped.
//!
//! Operations that build trees (checkpoints, fix commits, restores) never touch the user's index:
//! they point `GIT_INDEX_FILE` at one of these instead.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::cmd::{Git, GitError};
use crate::lock::lock_path;
use crate::repo::{salve_dir_in, Repo};

/// A scratch file path under `.git/salve/tmp/`; the file (and any `.lock` git left beside it)
/// is removed on drop.
pub(crate) struct TempFile {
    path: PathBuf,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempFile {
    /// A fresh, not yet existing path whose name starts with `stem`.
    pub(crate) fn new(repo: &Repo, stem: &str) -> Result<TempFile, GitError> {
        TempFile::in_git_dir(&repo.git_dir()?, stem)
    }

    /// [`TempFile::new`] for a caller that already knows the git directory.
    fn in_git_dir(git_dir: &Path, stem: &str) -> Result<TempFile, GitError> {
        let dir = salve_dir_in(git_dir)?.join("tmp");
        std::fs::create_dir_all(&dir)
            .map_err(|e| GitError::io(format!("creating {}", dir.display()), e))?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{stem}-{}-{nanos}-{n}", std::process::id()));
        Ok(TempFile { path })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_file(lock_path(&self.path));
    }
}

/// A temporary index: git commands built with [`TempIndex::git`] read and write it instead of
/// the user's index.
pub(crate) struct TempIndex {
    repo: Repo,
    file: TempFile,
}

impl TempIndex {
    /// An empty temporary index (the file does not exist yet; git treats that as empty).
    pub(crate) fn empty(repo: &Repo) -> Result<TempIndex, GitError> {
        Ok(TempIndex {
            repo: repo.clone(),
            file: TempFile::new(repo, "index")?,
        })
    }

    /// A temporary index that starts as a copy of the user's index, stat cache included, so
    /// files git already knows to be unchanged are not read and hashed again.
    pub(crate) fn copy_of_user_index(repo: &Repo) -> Result<TempIndex, GitError> {
        let (git_dir, source) = repo.git_dir_and_index_path()?;
        let temp = TempIndex {
            repo: repo.clone(),
            file: TempFile::in_git_dir(&git_dir, "index")?,
        };
        match std::fs::copy(&source, temp.path()) {
            Ok(_) => {}
            // No index yet (nothing ever added): the empty temporary index is the right start.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(temp),
            Err(e) => return Err(GitError::io(format!("copying {}", source.display()), e)),
        }
        // Keep the original's mtime: git trusts an entry's stat data only when the entry is older
        // than the index file, and a newer copy would hide a change made in the same instant as
        // the original index was written.
        if let Ok(meta) = std::fs::metadata(&source) {
            if let Ok(mtime) = meta.modified() {
                if let Ok(file) = std::fs::File::options().write(true).open(temp.path()) {
                    let _ = file.set_modified(mtime);
                }
            }
        }
        Ok(temp)
    }

    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    /// git in the work tree root, using this index.
    pub(crate) fn git(&self) -> Git {
        self.repo.git().env("GIT_INDEX_FILE", self.path())
    }
}
