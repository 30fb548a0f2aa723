//! Commit exactly the named files on top of HEAD, leaving the user's other work where it was.
//!
//! A temporary index is seeded with HEAD's tree and receives only the named paths from the work
//! tree (`add -A`, so deletions count). Hooks run against that index. The commit is made with
//! the user's identity and HEAD advances only if it still is the commit the index was built on
//! (`update-ref HEAD <new> <old>`). Finally the user's index takes the committed entries for the
//! named paths, and nothing else, so their other staged changes stay staged, unstaged changes stay
//! unstaged, and the fix does not show up reversed in `git diff --cached`.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::cmd::{split_nul, Git, GitError};
use crate::commit::hooks;
use crate::lock::{wait_until_unlocked, with_index_lock, DEFAULT_LOCK_WAIT};
use crate::repo::Repo;
use crate::tempindex::{TempFile, TempIndex};

#[derive(Clone, Debug)]
pub struct Options {
    /// Files (or directories) to commit, relative to the work tree root.
    pub paths: Vec<PathBuf>,
    /// The full message, for example from [`crate::commit::FixMessage::render`].
    pub message: String,
    /// Skip the pre-commit and commit-msg hooks, like `git commit --no-verify`.
    pub no_verify: bool,
    /// How long to wait for another git process's `index.lock`.
    pub lock_wait: Duration,
    /// Files committed with given contents rather than as the work tree has them.
    pub exact: Vec<Exact>,
}

/// A file committed with given contents instead of the work tree's, and the entry the user's
/// index takes for it: a fix commits its repair's lines alone, over HEAD's version, while the
/// user's own lines in the same file stay staged or unstaged as they were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// Relative to the work tree root.
    pub path: PathBuf,
    /// What the commit holds; `None` deletes the file in the commit.
    pub commit: Option<Vec<u8>>,
    /// What the user's index holds afterwards; `None` drops its entry.
    pub index: Option<Vec<u8>>,
    /// The git file mode, `0o100644` or `0o100755`.
    pub mode: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            paths: Vec::new(),
            message: String::new(),
            no_verify: false,
            lock_wait: DEFAULT_LOCK_WAIT,
            exact: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Outcome {
    pub commit: String,
    /// The previous HEAD, `None` for the first commit of a branch.
    pub parent: Option<String>,
    /// The branch that advanced, `None` on a detached HEAD.
    pub branch: Option<String>,
    /// Every path the commit changed.
    pub changed: Vec<PathBuf>,
    /// The message as committed (after hooks and whitespace clean-up).
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("no files to commit were named")]
    NoPaths,
    #[error("{} is not a path inside the work tree", .0.display())]
    OutsideWorkTree(PathBuf),
    #[error("{} is neither in the work tree nor in HEAD", .0.display())]
    NoSuchPath(PathBuf),
    #[error("the named files do not differ from HEAD; nothing to commit")]
    NothingToCommit,
    #[error("a {0} is in progress; finish or abort it before committing")]
    InProgress(&'static str),
    #[error("HEAD moved from {expected} to {found} while committing; nothing was committed")]
    HeadMoved { expected: String, found: String },
    #[error("the {name} hook failed (exit {code}); nothing was committed\n{output}")]
    Hook {
        name: String,
        code: i32,
        output: String,
    },
    #[error("the commit message is empty")]
    EmptyMessage,
    #[error(
        "git has no user identity here; set user.name and user.email (`git config user.name ...`)"
    )]
    NoIdentity,
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

/// Commit HEAD plus exactly `options.paths`; see the module docs.
pub fn files(repo: &Repo, options: &Options) -> Result<Outcome, Error> {
    if options.paths.is_empty() && options.exact.is_empty() {
        return Err(Error::NoPaths);
    }
    for path in options
        .paths
        .iter()
        .chain(options.exact.iter().map(|e| &e.path))
    {
        let inside = !path.as_os_str().is_empty()
            && path.components().all(|c| matches!(c, Component::Normal(_)));
        if !inside {
            return Err(Error::OutsideWorkTree(path.clone()));
        }
    }
    if let Some(what) = repo.operation_in_progress()? {
        return Err(Error::InProgress(what));
    }
    let head = repo.head()?;
    let temp = TempIndex::empty(repo)?;
    if let Some(parent) = &head.commit {
        temp.git().args(["read-tree", parent]).run_bytes()?;
    }
    for path in &options.paths {
        if repo.root.join(path).symlink_metadata().is_err() && !in_index(&temp, path)? {
            return Err(Error::NoSuchPath(path.clone()));
        }
    }
    if !options.paths.is_empty() {
        literal(temp.git())
            .args(["add", "-A", "--"])
            .args(&options.paths)
            .run_bytes()?;
    }
    set_entries(
        repo,
        temp.git(),
        options
            .exact
            .iter()
            .map(|e| (&e.path, e.commit.as_deref(), e.mode)),
    )?;

    let message_file = TempFile::new(repo, "COMMIT_MSG")?;
    write(message_file.path(), options.message.as_bytes())?;
    let msg_arg = message_file.path().as_os_str();
    if !options.no_verify {
        run_hook(repo, "pre-commit", &[], temp.path())?;
    }
    run_hook(
        repo,
        "prepare-commit-msg",
        &[msg_arg, "message".as_ref()],
        temp.path(),
    )?;
    if !options.no_verify {
        run_hook(repo, "commit-msg", &[msg_arg], temp.path())?;
    }
    let raw = std::fs::read(message_file.path()).map_err(|source| Error::Io {
        context: format!("reading {}", message_file.path().display()),
        source,
    })?;
    let message = repo.git().arg("stripspace").stdin(raw).run()?;
    if message.trim().is_empty() {
        return Err(Error::EmptyMessage);
    }

    // After the hooks: a pre-commit hook may have added to the index it was given.
    let tree = temp.git().arg("write-tree").run()?;
    let base_tree = match &head.commit {
        Some(parent) => repo.tree_of(parent)?,
        None => repo.empty_tree()?,
    };
    if tree == base_tree {
        return Err(Error::NothingToCommit);
    }
    let mut commit_tree = repo.git().arg("commit-tree");
    if let Some(parent) = &head.commit {
        commit_tree = commit_tree.args(["-p", parent]);
    }
    let commit = match commit_tree
        .args(["-F", "-", &tree])
        .stdin(format!("{message}\n").into_bytes())
        .run()
    {
        Ok(commit) => commit,
        Err(GitError::Failed { stderr, .. }) if stderr.contains("tell me who you are") => {
            return Err(Error::NoIdentity)
        }
        Err(e) => return Err(e.into()),
    };

    // The user's index is updated after HEAD moves; do not move HEAD if that cannot happen.
    wait_until_unlocked(&repo.index_path()?, options.lock_wait)?;
    let zero = "0".repeat(commit.len());
    let expected = head.commit.clone().unwrap_or_else(|| zero.clone());
    let subject = message.lines().next().unwrap_or("");
    let reflog = match head.commit {
        Some(_) => format!("commit: {subject}"),
        None => format!("commit (initial): {subject}"),
    };
    let moved = repo
        .git()
        .args(["update-ref", "-m", &reflog, "HEAD", &commit, &expected])
        .run_bytes();
    if let Err(e) = moved {
        let found = repo.resolve_commit("HEAD")?.unwrap_or_else(|| zero.clone());
        if found != expected {
            return Err(Error::HeadMoved { expected, found });
        }
        return Err(e.into());
    }

    let changed = repo.changed_paths(&base_tree, &tree)?;
    if !options.paths.is_empty() {
        // With no paths, `ls-files` would list every entry: the user's index is left alone.
        sync_user_index(repo, &temp, &options.paths, options.lock_wait)?;
    }
    if !options.exact.is_empty() {
        let index = repo.index_path()?;
        with_index_lock(&index, options.lock_wait, || {
            set_entries(
                repo,
                repo.git(),
                options
                    .exact
                    .iter()
                    .map(|e| (&e.path, e.index.as_deref(), e.mode)),
            )
        })?;
    }
    // post-commit cannot undo anything; its failure is the hook's business, as in git.
    let _ = hooks::run(repo, "post-commit", &[], &repo.index_path()?);
    Ok(Outcome {
        commit,
        parent: head.commit,
        branch: head.branch,
        changed,
        message,
    })
}

/// git with pathspecs taken literally, so names with `*`, `?` or `:` mean themselves.
fn literal(git: Git) -> Git {
    // `--literal-pathspecs` must precede the subcommand; a fresh builder has no arguments yet.
    git.arg("--literal-pathspecs")
}

fn in_index(temp: &TempIndex, path: &Path) -> Result<bool, GitError> {
    let out = literal(temp.git())
        .args(["ls-files", "-z", "--"])
        .arg(path)
        .run_bytes()?;
    Ok(!out.is_empty())
}

fn run_hook(repo: &Repo, name: &str, args: &[&std::ffi::OsStr], index: &Path) -> Result<(), Error> {
    match hooks::run(repo, name, args, index)? {
        Ok(()) => Ok(()),
        Err(failure) => Err(Error::Hook {
            name: name.to_owned(),
            code: failure.code,
            output: failure.output,
        }),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(|source| Error::Io {
        context: format!("writing {}", path.display()),
        source,
    })
}

/// Set index entries (through `git`, which names the index) to given contents, written as blobs;
/// `None` drops the entry.
fn set_entries<'a>(
    repo: &Repo,
    git: Git,
    entries: impl Iterator<Item = (&'a PathBuf, Option<&'a [u8]>, u32)>,
) -> Result<(), GitError> {
    let mut info = Vec::new();
    for (path, content, mode) in entries {
        let line = match content {
            Some(bytes) => {
                let oid = repo
                    .git()
                    .args(["hash-object", "-w", "--stdin"])
                    .stdin(bytes.to_vec())
                    .run()?;
                format!("{mode:o} {oid}\t")
            }
            None => {
                let zeros = repo.empty_tree()?.len();
                format!("0 {}\t", "0".repeat(zeros))
            }
        };
        info.extend_from_slice(line.as_bytes());
        info.extend_from_slice(path.to_string_lossy().as_bytes());
        info.push(0);
    }
    if info.is_empty() {
        return Ok(());
    }
    git.args(["update-index", "-z", "--index-info"])
        .stdin(info)
        .run_bytes()?;
    Ok(())
}

/// Give the user's index the committed entries of `paths` (and drop the ones the commit
/// deleted), touching no other entry.
fn sync_user_index(
    repo: &Repo,
    temp: &TempIndex,
    paths: &[PathBuf],
    wait: Duration,
) -> Result<(), GitError> {
    let committed = literal(temp.git())
        .args(["ls-files", "-s", "-z", "--"])
        .args(paths)
        .run_bytes()?;
    let index = repo.index_path()?;
    let current = literal(repo.git())
        .args(["ls-files", "-s", "-z", "--"])
        .args(paths)
        .run_bytes()?;
    let mut info = Vec::new();
    let mut kept = HashSet::new();
    for record in split_nul(&committed) {
        if let Some(tab) = record.iter().position(|b| *b == b'\t') {
            kept.insert(record[tab + 1..].to_vec());
        }
        info.extend_from_slice(record);
        info.push(0);
    }
    for record in split_nul(&current) {
        let Some(tab) = record.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let path = &record[tab + 1..];
        if !kept.contains(path) {
            // Mode 0 removes the entry (all stages of it).
            let oid_len = record.split(|b| *b == b' ').nth(1).map_or(40, <[u8]>::len);
            info.extend_from_slice(format!("0 {}\t", "0".repeat(oid_len)).as_bytes());
            info.extend_from_slice(path);
            info.push(0);
        }
    }
    if info.is_empty() {
        return Ok(());
    }
    with_index_lock(&index, wait, || {
        repo.git()
            .args(["update-index", "-z", "--index-info"])
            .stdin(info.clone())
            .run_bytes()
    })?;
    Ok(())
}
