//! Checkpoints: [`create`] snapshots the work tree and the staged state into salve's catalog,
//! [`list`] shows them, [`drop`] prunes them. The user's index, HEAD and files are never
//! touched.

use std::path::{Path, PathBuf};
use std::time::Duration;

use salve_git::checkpoint::{self as git_checkpoint, create as git_create, drop as git_drop};
use salve_git::{GitError, Repo};
use serde::Serialize;

use crate::error::{Classified, Kind};

/// Untracked files over this size are left out of a checkpoint: 10 MiB.
pub const DEFAULT_MAX_UNTRACKED_FILE: u64 = 10 << 20;

/// How to take a checkpoint.
#[derive(Clone, Debug)]
pub struct CreateOptions {
    /// A directory inside the work tree.
    pub dir: PathBuf,
    /// A note shown in the list.
    pub message: Option<String>,
    /// Untracked files larger than this are left out (and named in the outcome).
    pub max_file_size: u64,
}

impl CreateOptions {
    /// A checkpoint of the work tree at `dir` with the default limits.
    pub fn new(dir: impl Into<PathBuf>) -> CreateOptions {
        CreateOptions {
            dir: dir.into(),
            message: None,
            max_file_size: DEFAULT_MAX_UNTRACKED_FILE,
        }
    }
}

/// A checkpoint that was taken. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Taken {
    /// The branch; `None` when HEAD was detached.
    pub branch: Option<String>,
    pub commit: String,
    /// The HEAD commit it was taken on; `None` on an unborn branch.
    pub head: Option<String>,
    /// The short id users type.
    pub id: String,
    /// The staged state's tree; `None` when the index had unresolved conflicts.
    pub index_tree: Option<String>,
    /// Untracked paths left out.
    pub skipped: Vec<Skipped>,
    /// The work tree's tree.
    pub tree: String,
}

/// An untracked path a checkpoint left out; restore never deletes or overwrites it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Relative to the work tree root.
    pub path: String,
    pub reason: SkipReason,
}

/// Why a path was left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A file over the size limit.
    TooLarge { bytes: u64 },
    /// An untracked directory over the file-count or size limits.
    LargeDirectory { files: u64, bytes: u64 },
    /// A repository inside the work tree, never snapshotted or moved.
    NestedRepository,
}

/// `{bytes?, files?, path, reason}`: flat, keys in alphabetical order.
impl Serialize for Skipped {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let (reason, files, bytes) = match self.reason {
            SkipReason::TooLarge { bytes } => ("too_large", None, Some(bytes)),
            SkipReason::LargeDirectory { files, bytes } => {
                ("large_directory", Some(files), Some(bytes))
            }
            SkipReason::NestedRepository => ("nested_repository", None, None),
        };
        let mut map = serializer.serialize_map(None)?;
        if let Some(bytes) = bytes {
            map.serialize_entry("bytes", &bytes)?;
        }
        if let Some(files) = files {
            map.serialize_entry("files", &files)?;
        }
        map.serialize_entry("path", &self.path)?;
        map.serialize_entry("reason", reason)?;
        map.end()
    }
}

impl From<&git_create::Outcome> for Taken {
    fn from(taken: &git_create::Outcome) -> Taken {
        Taken {
            id: taken.id.clone(),
            commit: taken.commit.clone(),
            tree: taken.tree.clone(),
            index_tree: taken.index_tree.clone(),
            head: taken.head.commit.clone(),
            branch: taken.head.branch.clone(),
            skipped: taken.skipped.iter().map(Skipped::from).collect(),
        }
    }
}

impl From<&git_create::Skipped> for Skipped {
    fn from(s: &git_create::Skipped) -> Skipped {
        Skipped {
            path: show(&s.path),
            reason: match s.reason {
                git_create::SkipReason::TooLarge { bytes } => SkipReason::TooLarge { bytes },
                git_create::SkipReason::LargeDirectory { files, bytes } => {
                    SkipReason::LargeDirectory { files, bytes }
                }
                git_create::SkipReason::NestedRepository => SkipReason::NestedRepository,
            },
        }
    }
}

/// Why a checkpoint operation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Find(#[from] git_checkpoint::FindError),
}

impl From<git_create::Error> for Error {
    fn from(e: git_create::Error) -> Error {
        match e {
            git_create::Error::Git(e) => Error::Git(e),
        }
    }
}

impl From<git_drop::Error> for Error {
    fn from(e: git_drop::Error) -> Error {
        match e {
            git_drop::Error::Git(e) => Error::Git(e),
            git_drop::Error::Find(e) => Error::Find(e),
        }
    }
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::Git(e) => e.kind(),
            Error::Find(git_checkpoint::FindError::Git(e)) => e.kind(),
            Error::Find(_) => Kind::User,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::Git(e) | Error::Find(git_checkpoint::FindError::Git(e)) => e.code(),
            Error::Find(git_checkpoint::FindError::NotFound(_)) => "no_such_checkpoint",
            Error::Find(git_checkpoint::FindError::Ambiguous { .. }) => "ambiguous_checkpoint",
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::Git(e) | Error::Find(git_checkpoint::FindError::Git(e)) => e.hint(),
            Error::Find(_) => Some("the checkpoint list shows the ids".to_owned()),
        }
    }
}

/// Snapshot the work tree and staged state at `options.dir`.
pub fn create(options: &CreateOptions) -> Result<Taken, Error> {
    let repo = Repo::discover(&options.dir)?;
    let git_options = git_create::Options {
        message: options.message.clone(),
        limits: limits(options.max_file_size),
        ..git_create::Options::default()
    };
    Ok(Taken::from(&git_checkpoint::create(&repo, &git_options)?))
}

/// Which checkpoints to drop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DropSelection {
    /// One checkpoint, by id or unique prefix.
    Id(String),
    /// Every checkpoint older than this.
    OlderThan(Duration),
}

/// What to drop, where.
#[derive(Clone, Debug)]
pub struct DropOptions {
    /// A directory inside the work tree.
    pub dir: PathBuf,
    pub selection: DropSelection,
}

/// The ids of the checkpoints dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Dropped {
    pub dropped: Vec<String>,
}

/// Remove the selected checkpoints from the catalog.
pub fn drop(options: &DropOptions) -> Result<Dropped, Error> {
    let repo = Repo::discover(&options.dir)?;
    let selection = match &options.selection {
        DropSelection::Id(id) => git_drop::Selection::Id(id.clone()),
        DropSelection::OlderThan(age) => git_drop::Selection::OlderThan(*age),
    };
    let outcome = git_checkpoint::drop(&repo, &selection)?;
    Ok(Dropped {
        dropped: outcome.dropped.into_iter().map(|c| c.id).collect(),
    })
}

/// Which checkpoints to list.
#[derive(Clone, Debug)]
pub struct ListOptions {
    /// A directory inside the work tree.
    pub dir: PathBuf,
    /// Only checkpoints taken in this work tree (linked worktrees share the list).
    pub here: bool,
    /// List at most this many (after `offset`), newest first; `None` lists all.
    pub limit: Option<usize>,
    /// Leave out this many of the newest (paging).
    pub offset: usize,
}

/// One checkpoint as listed. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Listed {
    pub branch: Option<String>,
    pub commit: String,
    /// Files that differ from the HEAD it was taken on.
    pub files_changed: Option<usize>,
    pub head: Option<String>,
    pub id: String,
    pub message: String,
    /// Untracked paths it left out.
    pub skipped: usize,
    /// Seconds since the Unix epoch.
    pub time: i64,
    /// The work tree it was taken in.
    pub worktree: Option<String>,
}

/// The checkpoints, newest first. Serialized as the array alone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct List {
    pub checkpoints: Vec<Listed>,
    /// How many checkpoints there are in all (the page is `checkpoints`); not in the JSON,
    /// which is the array.
    #[serde(skip)]
    pub total: usize,
}

/// List the checkpoints, newest first, with the files each changed against its HEAD.
pub fn list(options: &ListOptions) -> Result<List, Error> {
    let repo = Repo::discover(&options.dir)?;
    let mut all = git_checkpoint::list(&repo, &git_checkpoint::list::Options::default())?;
    if options.here {
        // A checkpoint of an older salve names no worktree: it may be this one's.
        all.retain(|c| {
            c.worktree
                .as_deref()
                .is_none_or(|w| w == repo.root.as_path())
        });
    }
    let total = all.len();
    let mut page: Vec<_> = all
        .into_iter()
        .skip(options.offset)
        .take(options.limit.unwrap_or(usize::MAX))
        .collect();
    // Counted for the page alone, in one git call.
    git_checkpoint::list::count_files(&repo, &mut page)?;
    let checkpoints = page
        .into_iter()
        .map(|c| Listed {
            worktree: c.worktree.as_deref().map(show),
            id: c.id,
            commit: c.commit,
            time: c.time,
            message: c.message,
            head: c.head,
            branch: c.branch,
            files_changed: c.files_changed,
            skipped: c.skipped,
        })
        .collect();
    Ok(List { checkpoints, total })
}

/// The checkpoints still kept (not dropped), by id and commit: what a page needs to tell
/// whether a run's checkpoint can still be restored, without counting any files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    ids: Vec<(String, String)>,
}

impl Kept {
    /// Whether `spec` (a checkpoint id, or a commit as runs record it) names a kept checkpoint.
    pub fn holds(&self, spec: &str) -> bool {
        let spec = spec.trim().to_ascii_lowercase();
        !spec.is_empty()
            && self
                .ids
                .iter()
                .any(|(id, commit)| *id == spec || commit.starts_with(&spec))
    }
}

/// A stamp of the checkpoint list that changes whenever a checkpoint is taken or dropped,
/// read without listing them (empty before the first one).
pub fn stamp(dir: &Path) -> Result<String, Error> {
    let repo = Repo::discover(dir)?;
    Ok(git_checkpoint::catalog_tip(&repo)?.unwrap_or_default())
}

/// Which checkpoints are kept in the work tree at `dir` (one read of the catalog).
pub fn kept(dir: &Path) -> Result<Kept, Error> {
    let repo = Repo::discover(dir)?;
    let all = git_checkpoint::list(&repo, &git_checkpoint::list::Options::default())?;
    Ok(Kept {
        ids: all.into_iter().map(|c| (c.id, c.commit)).collect(),
    })
}

/// A checkpoint's changes against the HEAD it was taken on, as a unified diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// The HEAD commit compared against, `None` on an unborn branch (compared with nothing).
    pub head: Option<String>,
    pub id: String,
    /// The diff text (lossy UTF-8; binary files show as "Binary files differ").
    pub diff: String,
}

/// The diff of checkpoint `id` (or a unique prefix) against the HEAD it was taken on.
pub fn diff(dir: &Path, id: &str) -> Result<Diff, Error> {
    let repo = Repo::discover(dir)?;
    let found = git_checkpoint::find(&repo, id)?;
    let base = match &found.head {
        Some(head) => format!("{head}^{{tree}}"),
        None => repo.empty_tree()?,
    };
    let bytes = repo
        .git()
        .args(["diff-tree", "-p", "-r", "--no-renames", "--no-color"])
        .args([base.as_str(), found.tree.as_str()])
        .run_bytes()?;
    Ok(Diff {
        head: found.head,
        id: found.id,
        diff: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

/// The checkpoint limits with this size for untracked files.
pub(crate) fn limits(max_file_size: u64) -> git_create::Limits {
    git_create::Limits {
        max_file_bytes: max_file_size,
        ..git_create::Limits::default()
    }
}

/// A path for people and JSON (non-UTF-8 bytes shown as U+FFFD).
pub(crate) fn show(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
