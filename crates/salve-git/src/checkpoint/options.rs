//! What a checkpoint is asked to take and what it leaves out: the options, the size limits and
//! the paths skipped, and the identity checkpoint commits carry. A leaf module, so the parts that
//! build a checkpoint (the scan, the in-process trees, the object writer) share these types
//! without depending on the operation that uses them.

use std::path::PathBuf;

/// Checkpoint commits carry this identity, so they work where no git identity is configured.
pub const IDENTITY_NAME: &str = "salve";
/// See [`IDENTITY_NAME`].
pub const IDENTITY_EMAIL: &str = "salve@localhost";

/// How much untracked content a checkpoint takes before it skips.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Untracked files larger than this are skipped (default 10 MiB).
    pub max_file_bytes: u64,
    /// An untracked directory holding more files than this is skipped whole (default 5,000).
    pub max_dir_files: u64,
    /// An untracked directory holding more bytes than this is skipped whole (default 100 MiB).
    pub max_dir_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 10 * 1024 * 1024,
            max_dir_files: 5_000,
            max_dir_bytes: 100 * 1024 * 1024,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A note for `salve checkpoints`; defaults to "salve checkpoint".
    pub message: Option<String>,
    pub limits: Limits,
    /// When set, the checkpoint is also logged as the state before this salve operation (for
    /// example `"apply"`), which is what `salve undo` goes back to.
    pub operation: Option<String>,
    /// For an undo logged through [`Options::operation`]: the checkpoint logged before the
    /// operation it takes back, so the log says which change each undo undid.
    pub undoes: Option<String>,
    /// Paths to capture even though they are ignored (restore uses this for ignored files it is
    /// about to overwrite). Paths are relative to the work tree root.
    pub force_paths: Vec<PathBuf>,
    /// Untracked files whose names start with one of these are never captured, in any
    /// directory (a writer's temporary files, which a snapshot taken while they may exist must
    /// not bring back).
    pub skip_name_prefixes: Vec<String>,
}

/// Why an untracked path was left out of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A file over [`Limits::max_file_bytes`].
    TooLarge { bytes: u64 },
    /// An untracked directory over [`Limits::max_dir_files`] or [`Limits::max_dir_bytes`].
    LargeDirectory { files: u64, bytes: u64 },
    /// A repository inside the work tree; salve never snapshots or moves it.
    NestedRepository,
}

/// An untracked path a checkpoint left out; restore never deletes or overwrites it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Relative to the work tree root.
    pub path: PathBuf,
    pub reason: SkipReason,
}
