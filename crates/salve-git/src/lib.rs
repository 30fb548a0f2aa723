//! salve-git runs git for salve. Every git call goes through one command builder, [`Git`], which
//! scrubs the environment variables that would point git at another repository, fixes the locale,
//! and never lets git prompt.
//!
//! On top of it:
//! - [`checkpoint`]: snapshots of the work tree and staged state in one catalog ref
//!   (`refs/salve/catalog`), taken without touching the user's index, HEAD or files; listing
//!   and pruning them.
//! - [`restore()`]: bring a checkpoint back (after checkpointing the present, so it is undoable).
//! - [`undo()`]: restore the state before the latest salve change; a second undo redoes.
//! - [`untracked`]: the untracked listing a checkpoint takes, made in process with git's exact
//!   answer where git's rules are modelled, by git elsewhere.
//! - [`commit`]: commit exactly the files of a fix, leaving the user's other work untouched.
//! - [`Repo::blob_at`]: baseline reads for 3-way placement.
//!
//! Every operation is a module holding its `Options`, `Outcome` and `Error`, next to one
//! function of the same name.
//!
//! ```no_run
//! use salve_git::{checkpoint, Repo};
//!
//! let repo = Repo::discover(std::path::Path::new(".")).unwrap();
//! let taken = checkpoint::create(&repo, &checkpoint::create::Options::default()).unwrap();
//! println!("checkpoint {} ({} paths skipped)", taken.id, taken.skipped.len());
//! ```

pub mod checkpoint;
mod cmd;
pub mod commit;
mod discover;
#[cfg(unix)]
mod index;
mod lock;
mod object;
mod odb;
pub mod oplog;
mod pack;
mod path;
mod refs;
mod repo;
pub mod restore;
mod tempindex;
pub mod undo;
pub mod untracked;
mod zlib;

pub use cmd::{ensure_supported_version, git_version, split_nul, Git, GitError, MIN_GIT_VERSION};
pub use discover::linked_git_dir;
pub use lock::DEFAULT_LOCK_WAIT;
pub use path::{path_from_bytes, path_to_bytes};
pub use repo::{Head, Repo};
pub use restore::restore;
pub use undo::undo;
