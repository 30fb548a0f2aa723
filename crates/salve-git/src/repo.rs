//! A repository found from a directory, and the reads salve needs from it: where its git
//! directory and index live (linked worktrees have their own), what HEAD is, whether a merge or
//! rebase is under way, and baseline blobs.

use std::path::{Path, PathBuf};

use crate::cmd::{ensure_supported_version, split_nul, Git, GitError};
use crate::path::path_from_bytes;
use salve_concurrent::both;

/// A git work tree.
#[derive(Clone, Debug)]
pub struct Repo {
    /// The top of the work tree.
    pub root: PathBuf,
}

/// What HEAD points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The commit, or `None` on an unborn branch (a repository with no commits yet).
    pub commit: Option<String>,
    /// The branch ref (`refs/heads/main`), or `None` when HEAD is detached.
    pub branch: Option<String>,
}

impl Repo {
    /// The repository containing `dir`, or [`GitError::NotARepository`]. When git has to be
    /// asked (anything but the ordinary layout, see `discover`), also checks that it is
    /// installed and new enough (once per process).
    pub fn discover(dir: &Path) -> Result<Repo, GitError> {
        Self::discover_with_prefix(dir).map(|(repo, _)| repo)
    }

    /// [`Repo::discover`], plus where `dir` sits in the work tree: the `/`-terminated prefix
    /// `git rev-parse --show-prefix` prints (empty at the root). One git call for both.
    pub fn discover_with_prefix(dir: &Path) -> Result<(Repo, String), GitError> {
        Self::ask(dir, None).map(|(repo, prefix, _)| (repo, prefix))
    }

    /// [`Repo::discover_with_prefix`], plus the commit `rev` names (`None` when it names none,
    /// as on an unborn branch): one git call answers all three.
    pub fn discover_at(dir: &Path, rev: &str) -> Result<(Repo, String, Option<String>), GitError> {
        Self::ask(dir, Some(rev))
    }

    fn ask(dir: &Path, rev: Option<&str>) -> Result<(Repo, String, Option<String>), GitError> {
        // Where a directory's repository is does not change while salve runs: one process
        // (a fix loop, the MCP server) asks once per directory, not once per operation.
        let key = std::fs::canonicalize(dir).ok();
        // Asked before, or readable from the file system without starting git.
        let known = key
            .as_ref()
            .and_then(|k| memo::get(&memo::DISCOVERED, k).or_else(|| Self::ask_files(k)));
        if let Some(found) = known {
            match rev {
                None => return Ok((found.0, found.1, None)),
                // HEAD, the revision salve asks for most, is read from the ref files.
                Some("HEAD") => {
                    if let Some(head) = found.0.head_from_files()? {
                        return Ok((found.0, found.1, head.commit));
                    }
                }
                Some(_) => {}
            }
        }
        let asked = Self::ask_git(dir, rev)?;
        if let Some(key) = key {
            memo::put(&memo::DISCOVERED, key, (asked.0.clone(), asked.1.clone()));
        }
        Ok(asked)
    }

    /// The repository around the canonical directory `dir` read from the file system, when
    /// that gives git's answer for sure (see `discover`); remembered like git's answers.
    fn ask_files(dir: &Path) -> Option<(Repo, String)> {
        let found = crate::discover::in_process(dir)?;
        let repo = Repo { root: found.root };
        memo::put(&memo::GIT_DIRS, repo.root.clone(), found.git_dir);
        memo::put(
            &memo::DISCOVERED,
            dir.to_path_buf(),
            (repo.clone(), found.prefix.clone()),
        );
        Some((repo, found.prefix))
    }

    fn ask_git(dir: &Path, rev: Option<&str>) -> Result<(Repo, String, Option<String>), GitError> {
        let ask = || {
            let git = Git::new(dir).args(["rev-parse", "--show-toplevel", "--show-prefix"]);
            match rev {
                Some(rev) => git
                    .args(["--verify", "--quiet", "--end-of-options"])
                    .arg(format!("{rev}^{{commit}}")),
                None => git,
            }
            .output()
        };
        // The version check (once per process) and the question itself run at once: each is a
        // process start, and neither needs the other's answer. A version problem still wins.
        let (version, out) = both(ensure_supported_version, ask);
        version?;
        let out = out?;
        let mut lines = out.stdout.split(|&b| b == b'\n');
        let top = lines.next().unwrap_or_default();
        // Not a repository (128), or inside the git directory itself or a bare repository (no
        // work tree). A revision that names no commit fails `--verify` (1) after the first two
        // answers.
        if top.is_empty() || (!out.status.success() && rev.is_none()) {
            return Err(GitError::NotARepository(dir.to_path_buf()));
        }
        if !out.status.success() && out.status.code() != Some(1) {
            return Err(GitError::NotARepository(dir.to_path_buf()));
        }
        let prefix = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
        let commit = lines
            .next()
            .filter(|c| out.status.success() && !c.is_empty())
            .map(|c| String::from_utf8_lossy(c).into_owned());
        Ok((
            Repo {
                root: path_from_bytes(top),
            },
            prefix,
            commit,
        ))
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

    /// This work tree's git directory, absolute. For a linked worktree it is
    /// `.git/worktrees/<name>`, which holds that worktree's own index and HEAD.
    pub fn git_dir(&self) -> Result<PathBuf, GitError> {
        if let Some(dir) = memo::get(&memo::GIT_DIRS, &self.root) {
            return Ok(dir);
        }
        let bytes = self
            .git()
            .args(["rev-parse", "--absolute-git-dir"])
            .run_bytes()?;
        let dir = path_from_bytes(trim_newline(&bytes));
        memo::put(&memo::GIT_DIRS, self.root.clone(), dir.clone());
        Ok(dir)
    }

    /// The git directory shared by all worktrees (objects and refs live there): a linked
    /// worktree's git directory names it in its `commondir` file, as git itself reads it.
    pub fn common_dir(&self) -> Result<PathBuf, GitError> {
        let git_dir = self.git_dir()?;
        match std::fs::read(git_dir.join("commondir")) {
            Ok(bytes) => Ok(git_dir.join(path_from_bytes(trim_newline(&bytes)))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(git_dir),
            Err(e) => Err(GitError::io(
                format!("reading {}/commondir", git_dir.display()),
                e,
            )),
        }
    }

    /// Where git keeps `name` (`index`, `MERGE_HEAD`, `hooks/pre-commit`, ...) for this work
    /// tree, absolute. Follows linked worktrees and `core.hooksPath` the way git does.
    pub fn git_path(&self, name: &str) -> Result<PathBuf, GitError> {
        // The index is per work tree and nothing but `GIT_INDEX_FILE` (which salve's git
        // commands never inherit) moves it: no process needed.
        if name == "index" {
            return Ok(self.git_dir()?.join("index"));
        }
        let key = (self.root.clone(), name.to_owned());
        if let Some(path) = memo::get(&memo::GIT_PATHS, &key) {
            return Ok(path);
        }
        let bytes = self
            .git()
            .args(["rev-parse", "--git-path", name])
            .run_bytes()?;
        let path = self.root.join(path_from_bytes(trim_newline(&bytes)));
        memo::put(&memo::GIT_PATHS, key, path.clone());
        Ok(path)
    }

    /// The path of this work tree's index file.
    pub fn index_path(&self) -> Result<PathBuf, GitError> {
        self.git_path("index")
    }

    /// [`Repo::git_dir`] and [`Repo::index_path`] from one git call (each call is a process
    /// start, and a temporary index needs both).
    pub(crate) fn git_dir_and_index_path(&self) -> Result<(PathBuf, PathBuf), GitError> {
        if let Some(both) = memo::get(&memo::INDEX_PATHS, &self.root) {
            return Ok(both);
        }
        let found = self.ask_git_dir_and_index_path()?;
        memo::put(&memo::INDEX_PATHS, self.root.clone(), found.clone());
        Ok(found)
    }

    fn ask_git_dir_and_index_path(&self) -> Result<(PathBuf, PathBuf), GitError> {
        let bytes = self
            .git()
            .args(["rev-parse", "--absolute-git-dir", "--git-path", "index"])
            .run_bytes()?;
        let mut lines = trim_newline(&bytes).split(|&b| b == b'\n');
        match (lines.next(), lines.next(), lines.next()) {
            (Some(dir), Some(index), None) => {
                Ok((path_from_bytes(dir), self.root.join(path_from_bytes(index))))
            }
            // A newline inside a path makes the lines ambiguous; one answer per call is not.
            _ => Ok((self.git_dir()?, self.index_path()?)),
        }
    }

    /// salve's private directory inside this work tree's git directory, created when missing.
    pub fn salve_dir(&self) -> Result<PathBuf, GitError> {
        salve_dir_in(&self.git_dir()?)
    }

    /// HEAD's commit and branch. Works on unborn branches and detached HEADs. Read from the
    /// ref files when they are plain (no git process); git answers otherwise.
    pub fn head(&self) -> Result<Head, GitError> {
        if let Some(head) = self.head_from_files()? {
            return Ok(head);
        }
        self.head_from_git()
    }

    fn head_from_files(&self) -> Result<Option<Head>, GitError> {
        use crate::refs::{read, Value};
        let (git_dir, common) = (self.git_dir()?, self.common_dir()?);
        Ok(match read(&git_dir, &common, "HEAD") {
            Value::Id(commit) => Some(Head {
                commit: Some(commit),
                branch: None,
            }),
            Value::Symbolic(branch) if branch.starts_with("refs/heads/") => {
                match read(&common, &common, &branch) {
                    Value::Id(commit) => Some(Head {
                        commit: Some(commit),
                        branch: Some(branch),
                    }),
                    Value::Absent => Some(Head {
                        commit: None,
                        branch: Some(branch),
                    }),
                    Value::Symbolic(_) | Value::Unknown => None,
                }
            }
            _ => None,
        })
    }

    fn head_from_git(&self) -> Result<Head, GitError> {
        let (commit, out) = both(
            || self.resolve_commit("HEAD"),
            || self.git().args(["symbolic-ref", "-q", "HEAD"]).output(),
        );
        let commit = commit?;
        let out = out?;
        let branch = if out.status.success() {
            Some(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        } else {
            None
        };
        Ok(Head { commit, branch })
    }

    /// The tree of a commit.
    pub fn tree_of(&self, commit: &str) -> Result<String, GitError> {
        self.git()
            .args(["rev-parse", "--verify", "--end-of-options"])
            .arg(format!("{commit}^{{tree}}"))
            .run()
    }

    /// The empty tree's id in this repository's hash (SHA-1 or SHA-256).
    pub fn empty_tree(&self) -> Result<String, GitError> {
        self.git()
            .args(["hash-object", "-t", "tree", "--stdin"])
            .stdin(Vec::new())
            .run()
    }

    /// The operation in progress that makes rewriting the work tree unsafe (`merge`, `rebase`,
    /// `cherry-pick`, `revert`, `am`), if any.
    pub fn operation_in_progress(&self) -> Result<Option<&'static str>, GitError> {
        const MARKERS: &[(&str, &str)] = &[
            ("rebase-merge", "rebase"),
            ("rebase-apply", "rebase"),
            ("MERGE_HEAD", "merge"),
            ("CHERRY_PICK_HEAD", "cherry-pick"),
            ("REVERT_HEAD", "revert"),
        ];
        let dir = self.git_dir()?;
        for (marker, what) in MARKERS {
            if dir.join(marker).exists() {
                // rebase-apply is also used by `git am`.
                if *marker == "rebase-apply" && dir.join(marker).join("applying").exists() {
                    return Ok(Some("am"));
                }
                return Ok(Some(what));
            }
        }
        Ok(None)
    }

    /// True when the index holds unmerged (conflicted) entries.
    pub fn has_unmerged_entries(&self) -> Result<bool, GitError> {
        has_unmerged(self.git())
    }

    /// Paths that differ between two trees (or commits), relative to the work tree root.
    /// The tree of each of `revs` (commits or trees), in one `git rev-parse`; an error when any
    /// is missing.
    pub(crate) fn trees_of(&self, revs: &[String]) -> Result<Vec<String>, GitError> {
        if revs.is_empty() {
            return Ok(Vec::new());
        }
        let out = self
            .git()
            .args(["rev-parse", "--end-of-options"])
            .args(revs.iter().map(|r| format!("{r}^{{tree}}")))
            .run()?;
        let trees: Vec<String> = out.lines().map(str::to_owned).collect();
        if trees.len() != revs.len() {
            return Err(GitError::Failed {
                args: "rev-parse".to_owned(),
                code: 0,
                stderr: format!("{} trees for {} revisions", trees.len(), revs.len()),
            });
        }
        Ok(trees)
    }

    /// How many paths differ between each pair of trees, in one `git diff-tree --stdin` for
    /// all of them (one process per pair costs a second for a few hundred).
    pub(crate) fn changed_counts(
        &self,
        pairs: &[(String, String)],
    ) -> Result<Vec<usize>, GitError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let input: String = pairs.iter().map(|(a, b)| format!("{a} {b}\n")).collect();
        let out = self
            .git()
            .args([
                "diff-tree",
                "--stdin",
                "-r",
                "-z",
                "--no-renames",
                "--name-only",
            ])
            .stdin(input.into_bytes())
            .run_bytes()?;
        Ok(count_per_pair(&out, pairs))
    }

    pub(crate) fn changed_paths(&self, from: &str, to: &str) -> Result<Vec<PathBuf>, GitError> {
        let out = self
            .git()
            .args([
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--name-only",
                from,
                to,
            ])
            .run_bytes()?;
        Ok(split_nul(&out).map(path_from_bytes).collect())
    }
}

/// Split `diff-tree --stdin -z --name-only` output: each pair's `FROM TO` line, then its paths,
/// each ending in NUL. A pair's line is recognized as the next one expected, so no path name
/// can be taken for one.
fn count_per_pair(out: &[u8], pairs: &[(String, String)]) -> Vec<usize> {
    let mut counts = vec![0; pairs.len()];
    let mut rest = out;
    let mut current: Option<usize> = None;
    while !rest.is_empty() {
        let next = current.map_or(0, |c| c + 1);
        if let Some((a, b)) = pairs.get(next) {
            let header = format!("{a} {b}\n");
            if rest.starts_with(header.as_bytes()) {
                rest = &rest[header.len()..];
                current = Some(next);
                continue;
            }
        }
        let end = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
        if let Some(c) = current {
            counts[c] += 1;
        }
        rest = rest.get(end + 1..).unwrap_or(&[]);
    }
    counts
}

/// True when the index `git` reads (the user's, or a temporary one) has unmerged entries.
pub(crate) fn has_unmerged(git: Git) -> Result<bool, GitError> {
    let out = git.args(["ls-files", "-u", "-z"]).run_bytes()?;
    Ok(!out.is_empty())
}

/// salve's private directory inside the git directory `git_dir`, created when missing.
pub(crate) fn salve_dir_in(git_dir: &Path) -> Result<PathBuf, GitError> {
    let dir = git_dir.join("salve");
    std::fs::create_dir_all(&dir)
        .map_err(|e| GitError::io(format!("creating {}", dir.display()), e))?;
    Ok(dir)
}

pub(crate) fn trim_newline(bytes: &[u8]) -> &[u8] {
    let mut end = bytes.len();
    while end > 0 && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    &bytes[..end]
}

/// A directory git would treat as a repository of its own (a `.git` directory or file inside).
pub(crate) fn is_nested_repository(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = Git::new(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .run_bytes();
        assert!(out.is_ok(), "git {args:?}: {out:?}");
    }

    fn assert_one_call_matches_two(root: &Path) {
        let repo = Repo {
            root: root.to_path_buf(),
        };
        let (dir, index) = repo.git_dir_and_index_path().unwrap();
        assert_eq!(dir, repo.git_dir().unwrap());
        assert_eq!(index, repo.index_path().unwrap());
    }

    #[test]
    fn head_from_the_ref_files_follows_new_commits_packed_refs_and_detached_heads() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        git(root, &["init", "-q", "-b", "main"]);
        let head = |root: &Path| Repo::discover_at(root, "HEAD").unwrap().2;
        let asked = |root: &Path| Repo::ask_git(root, Some("HEAD")).unwrap().2;
        assert_eq!(head(root), None);
        git(root, &["commit", "-q", "--allow-empty", "-m", "one"]);
        assert_eq!(head(root), asked(root));
        assert!(head(root).is_some());
        git(root, &["commit", "-q", "--allow-empty", "-m", "two"]);
        git(root, &["pack-refs", "--all"]);
        assert_eq!(head(root), asked(root));
        git(root, &["checkout", "-q", "--detach", "HEAD~1"]);
        assert_eq!(head(root), asked(root));
        let repo = Repo::discover(root).unwrap();
        assert_eq!(repo.head().unwrap(), repo.head_from_git().unwrap());
    }

    #[test]
    fn one_call_finds_the_work_tree_the_prefix_and_the_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir(root.join("sub")).unwrap();
        // Unborn: a repository, no commit.
        let (repo, prefix, commit) = Repo::discover_at(&root.join("sub"), "HEAD").unwrap();
        assert_eq!(
            repo.root.canonicalize().unwrap(),
            root.canonicalize().unwrap()
        );
        assert_eq!((prefix.as_str(), commit), ("sub/", None));
        std::fs::write(root.join("sub/f"), "x\n").unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "c"]);
        let head = repo.resolve_commit("HEAD").unwrap();
        assert!(head.is_some());
        let (_, prefix, commit) = Repo::discover_at(&root.join("sub"), "HEAD").unwrap();
        assert_eq!((prefix.as_str(), commit), ("sub/", head));
        let (_, prefix, commit) = Repo::discover_at(root, "no-such-rev").unwrap();
        assert_eq!((prefix.as_str(), commit), ("", None));
        let outside = tempfile::tempdir().unwrap();
        assert!(matches!(
            Repo::discover_at(outside.path(), "HEAD"),
            Err(GitError::NotARepository(_))
        ));
    }

    #[test]
    fn git_dir_and_index_path_agree_with_the_single_calls() {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        let main = base.join("main");
        // A newline in the path makes the two-line answer ambiguous.
        let odd = base.join("odd\nname");
        for root in [&main, &odd] {
            std::fs::create_dir(root).unwrap();
            git(root, &["init", "-q"]);
            assert_one_call_matches_two(root);
        }
        git(&main, &["commit", "-q", "--allow-empty", "-m", "first"]);
        let linked = base.join("linked");
        let linked_arg = linked.to_string_lossy().into_owned();
        git(&main, &["worktree", "add", "-q", "--detach", &linked_arg]);
        assert_one_call_matches_two(&linked);
        let repo = Repo { root: linked };
        let (dir, index) = repo.git_dir_and_index_path().unwrap();
        assert_eq!(dir, main.join(".git/worktrees/linked"));
        assert_eq!(index, dir.join("index"));
    }
}

/// Answers about a repository's layout that hold for the life of the process, kept so that
/// repeated operations do not ask git again. Only successful answers are kept.
mod memo {
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::sync::{Mutex, OnceLock};

    use super::Repo;

    pub(super) type Table<V, K = PathBuf> = OnceLock<Mutex<HashMap<K, V>>>;

    /// Canonical directory → its repository and prefix.
    pub(super) static DISCOVERED: Table<(Repo, String)> = OnceLock::new();
    /// Work tree root → its git directory.
    pub(super) static GIT_DIRS: Table<PathBuf> = OnceLock::new();
    /// Work tree root → its git directory and index file.
    pub(super) static INDEX_PATHS: Table<(PathBuf, PathBuf)> = OnceLock::new();
    /// (work tree root, name) → where git keeps it.
    pub(super) static GIT_PATHS: Table<PathBuf, (PathBuf, String)> = OnceLock::new();

    pub(super) fn get<V: Clone, K: std::hash::Hash + Eq>(
        table: &Table<V, K>,
        key: &K,
    ) -> Option<V> {
        let map = table.get_or_init(Default::default).lock().ok()?;
        map.get(key).cloned()
    }

    pub(super) fn put<V, K: std::hash::Hash + Eq>(table: &Table<V, K>, key: K, value: V) {
        if let Ok(mut map) = table.get_or_init(Default::default).lock() {
            map.insert(key, value);
        }
    }
}
