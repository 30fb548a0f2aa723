//! A repository found from a directory, and the reads salve needs from it.

use std::path::{Path, PathBuf};

use crate::cmd::{Git, GitError};

/// A git work tree.
#[derive(Clone, Debug)]
pub struct Repo {
    /// The top of the work tree.
    pub root: PathBuf,
}

impl Repo {
    /// The repository containing `dir`, or [`GitError::NotARepository`].
    pub fn discover(dir: &Path) -> Result<Repo, GitError> {
        let out = Git::new(dir)
            .args(["rev-parse", "--show-toplevel"])
            .output()?;
        if !out.status.success() {
            return Err(GitError::NotARepository(dir.to_path_buf()));
        }
        let top = String::from_utf8(out.stdout)
            .map_err(|_| GitError::NotUtf8("rev-parse --show-toplevel".into()))?;
        Ok(Repo {
            root: PathBuf::from(top.trim_end_matches('\n')),
        })
    }

    pub fn git(&self) -> Git {
        Git::new(&self.root)
    }

    /// The commit a revision names, or `None` when it names nothing (an unborn HEAD).
    pub fn resolve_commit(&self, rev: &str) -> Result<Option<String>, GitError> {
        let out = self
            .git()
            .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{rev}^{{commit}}"))
            .output()?;
        if out.status.success() {
            Ok(Some(String::from_utf8_lossy(&out.stdout).trim().to_owned()))
        } else {
            Ok(None)
        }
    }

    /// The bytes of `path` (relative to the work tree root, `/`-separated) at `commit`, or `None`
    /// when the commit has no such file.
    pub fn blob_at(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let spec = format!("{commit}:{path}");
        let out = self.git().args(["cat-file", "blob", &spec]).output()?;
        if out.status.success() {
            Ok(Some(out.stdout))
        } else {
            Ok(None)
        }
    }
}
