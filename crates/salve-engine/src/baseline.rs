//! The baseline: the commit the model read, and the blobs of the files it edits at that commit.
//!
//! A model edits the text it was shown, which is usually the last commit; the work tree may have
//! moved on since. When a file's baseline blob differs from the work tree, the applier gets it
//! and can place the edit where the model saw it and merge that change into the work tree (the
//! 3-way rung) instead of guessing.

use std::path::Path;

use salve_git::{Git, GitError, Repo};

use crate::paths::TreePath;

/// Why no baseline could be set up when one was asked for.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("--base {rev} was given, but {} is not inside a git repository", dir.display())]
    NoRepository {
        rev: String,
        dir: std::path::PathBuf,
    },
    #[error("revision `{0}` does not name a commit in this repository")]
    UnknownRevision(String),
    #[error(transparent)]
    Git(#[from] GitError),
}

/// The repository around the work tree, when there is one.
#[derive(Clone, Debug)]
pub struct GitContext {
    pub repo: Repo,
    /// The work tree directory relative to the repository root, `/`-terminated (empty at the
    /// root), as `git rev-parse --show-prefix` prints it.
    pub prefix: String,
}

impl GitContext {
    /// The repository containing `dir`, or `None` outside git (or when git is not installed).
    pub fn discover(dir: &Path) -> Result<Option<GitContext>, GitError> {
        let repo = match Repo::discover(dir) {
            Ok(repo) => repo,
            Err(GitError::NotARepository(_) | GitError::NotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        let prefix = Git::new(dir).args(["rev-parse", "--show-prefix"]).run()?;
        Ok(Some(GitContext { repo, prefix }))
    }
}

/// A resolved baseline commit.
#[derive(Clone, Debug)]
pub struct Baseline {
    git: GitContext,
    commit: String,
}

impl Baseline {
    /// The baseline for `base`: the named revision, which must exist, or by default `HEAD` when
    /// the repository has commits. `None` when there is nothing to compare with.
    pub fn resolve(
        dir: &Path,
        git: Option<&GitContext>,
        base: Option<&str>,
    ) -> Result<Option<Baseline>, BaselineError> {
        let Some(git) = git else {
            return match base {
                Some(rev) => Err(BaselineError::NoRepository {
                    rev: rev.to_owned(),
                    dir: dir.to_path_buf(),
                }),
                None => Ok(None),
            };
        };
        let rev = base.unwrap_or("HEAD");
        match git.repo.resolve_commit(rev)? {
            Some(commit) => Ok(Some(Baseline {
                git: git.clone(),
                commit,
            })),
            None if base.is_none() => Ok(None),
            None => Err(BaselineError::UnknownRevision(rev.to_owned())),
        }
    }

    /// The full commit id.
    pub fn commit(&self) -> &str {
        &self.commit
    }

    /// The text of `path` (relative to the work tree) at the baseline commit, or `None` when the
    /// commit has no such file or it is not UTF-8 text.
    pub fn text(&self, path: &TreePath) -> Option<String> {
        let full = format!("{}{}", self.git.prefix, path);
        let bytes = self.git.repo.blob_at(&self.commit, &full).ok()??;
        if bytes.contains(&0) {
            return None;
        }
        String::from_utf8(bytes).ok()
    }

    /// The baseline text worth passing to the applier: only when it differs from the work tree
    /// in more than line endings, since an identical baseline adds nothing.
    pub fn differing_text(&self, path: &TreePath, current: &str) -> Option<String> {
        let text = self.text(path)?;
        if same_ignoring_line_endings(&text, current) {
            None
        } else {
            Some(text)
        }
    }
}

fn same_ignoring_line_endings(a: &str, b: &str) -> bool {
    a == b || a.replace("\r\n", "\n") == b.replace("\r\n", "\n")
}
