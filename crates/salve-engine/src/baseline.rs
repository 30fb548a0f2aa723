//! The baseline: the commit the model read, and the blobs of the files it edits at that commit.
//!
//! A model edits the text it was shown, which is usually the last commit; the work tree may have
//! moved on since. When a file's baseline blob differs from the work tree, the applier gets it
//! and can place the edit where the model saw it and merge that change into the work tree (the
//! 3-way rung) instead of guessing.

use std::path::Path;

use salve_git::{GitError, Repo};

use crate::paths::TreePath;

/// Why no baseline could be set up when one was asked for.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("the base {rev} was given, but {} is not inside a git repository", dir.display())]
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

/// A resolved baseline commit.
#[derive(Clone, Debug)]
pub struct Baseline {
    git: GitContext,
    commit: String,
}

impl Baseline {
    /// The repository around `dir` (`None` outside git or when git is not installed), where
    /// `dir` sits in it, and the baseline for `base`: the named revision, which must exist, or
    /// by default `HEAD` when the repository has commits. One git call answers all of it. `dir`
    /// is where git runs; `shown` names it in errors.
    pub fn discover(
        dir: &Path,
        shown: &Path,
        base: Option<&str>,
    ) -> Result<(Option<GitContext>, Option<Baseline>), BaselineError> {
        let rev = base.unwrap_or("HEAD");
        let (repo, prefix, commit) = match Repo::discover_at(dir, rev) {
            Ok(found) => found,
            Err(GitError::NotARepository(_) | GitError::NotFound) => {
                return match base {
                    Some(rev) => Err(BaselineError::NoRepository {
                        rev: rev.to_owned(),
                        dir: shown.to_path_buf(),
                    }),
                    None => Ok((None, None)),
                };
            }
            Err(e) => return Err(e.into()),
        };
        let git = GitContext { repo, prefix };
        let baseline = match commit {
            Some(commit) => Some(Baseline {
                git: git.clone(),
                commit,
            }),
            None if base.is_none() => None,
            None => return Err(BaselineError::UnknownRevision(rev.to_owned())),
        };
        Ok((Some(git), baseline))
    }

    /// The full commit id.
    pub fn commit(&self) -> &str {
        &self.commit
    }

    /// The text of `path` (relative to the work tree) at the baseline commit, or `None` when the
    /// commit has no such file or it is not UTF-8 text.
    pub fn text(&self, path: &TreePath) -> Option<String> {
        self.text_at(&self.full_path(path))
    }

    /// The baseline text worth passing to the applier: only when it differs from the work tree
    /// in more than line endings, since an identical baseline adds nothing.
    pub fn differing_text(&self, path: &TreePath, current: &str) -> Option<String> {
        let full = self.full_path(path);
        // Inflating a large blob costs more than the placement itself, and the usual work tree
        // file is unchanged since the commit: comparing object ids settles that without it.
        if self
            .blob_id(&full)
            .is_some_and(|id| id.eq_ignore_ascii_case(&git_blob_id(current.as_bytes())))
        {
            return None;
        }
        let text = self.text_at(&full)?;
        if same_ignoring_line_endings(&text, current) {
            None
        } else {
            // Git may store the file with other line endings than the work tree has
            // (`core.autocrlf`, `eol`): the merge runs in the work tree's representation.
            Some(in_endings_of(text, current))
        }
    }

    fn full_path(&self, path: &TreePath) -> String {
        format!("{}{}", self.git.prefix, path)
    }

    fn text_at(&self, full: &str) -> Option<String> {
        let bytes = self.git.repo.blob_at(&self.commit, full).ok()??;
        if salve_patch::is_binary(&bytes) {
            return None;
        }
        String::from_utf8(bytes).ok()
    }

    /// The object id `full` has at the baseline commit, without reading the object; `None` when
    /// git cannot name one (then the caller reads the blob as before).
    fn blob_id(&self, full: &str) -> Option<String> {
        let out = self
            .git
            .repo
            .git()
            .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{}:{full}", self.commit))
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let id = String::from_utf8(out.stdout).ok()?;
        Some(id.trim().to_owned())
    }
}

/// The id git gives `bytes` as a blob in a SHA-1 repository. A SHA-256 repository never matches
/// it, which only costs the blob read this check exists to skip.
fn git_blob_id(bytes: &[u8]) -> String {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn same_ignoring_line_endings(a: &str, b: &str) -> bool {
    a == b || a.replace("\r\n", "\n") == b.replace("\r\n", "\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::paths::normalize;

    #[test]
    fn blob_ids_match_git() {
        assert_eq!(git_blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
        assert_eq!(
            git_blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?} failed");
    }

    #[test]
    fn differing_text_only_when_the_file_moved_on() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        std::fs::create_dir(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/a.txt"), "one\ntwo\n").unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", "c"]);
        let sub = dir.join("sub");
        let (_, base) = Baseline::discover(&sub, &sub, None).unwrap();
        let base = base.unwrap();
        let path = normalize("a.txt").unwrap();
        // The same bytes and the same lines under other line endings both count as unchanged.
        assert_eq!(base.differing_text(&path, "one\ntwo\n"), None);
        assert_eq!(base.differing_text(&path, "one\r\ntwo\r\n"), None);
        assert_eq!(
            base.differing_text(&path, "one\nthree\n").as_deref(),
            Some("one\ntwo\n")
        );
        assert_eq!(
            base.differing_text(&normalize("missing.txt").unwrap(), "x\n"),
            None
        );
    }
}

/// `text` with the line endings most of `current`'s lines have (CRLF or LF), when it uses the
/// other kind; unchanged otherwise.
pub(crate) fn in_endings_of(text: String, current: &str) -> String {
    let crlf = current.matches("\r\n").count();
    let lf = current.matches('\n').count() - crlf;
    let text_crlf = text.matches("\r\n").count();
    let text_lf = text.matches('\n').count() - text_crlf;
    if crlf > lf && text_lf > 0 {
        let mut out = String::with_capacity(text.len() + text_lf);
        for line in text.split_inclusive('\n') {
            match line.strip_suffix('\n') {
                Some(body) if !body.ends_with('\r') => {
                    out.push_str(body);
                    out.push_str("\r\n");
                }
                _ => out.push_str(line),
            }
        }
        out
    } else if lf > crlf && text_crlf > 0 {
        text.replace("\r\n", "\n")
    } else {
        text
    }
}

#[cfg(test)]
mod endings_tests {
    use super::in_endings_of;

    #[test]
    fn the_baseline_takes_the_work_tree_endings() {
        let lf = "a\nb\n".to_owned();
        assert_eq!(in_endings_of(lf.clone(), "a\r\nx\r\n"), "a\r\nb\r\n");
        assert_eq!(in_endings_of("a\r\nb\r\n".into(), "a\nx\n"), "a\nb\n");
        assert_eq!(in_endings_of(lf.clone(), "a\nx\n"), lf);
        // A file without line breaks says nothing: the baseline stays as stored.
        assert_eq!(in_endings_of(lf.clone(), "one line"), lf);
    }
}
