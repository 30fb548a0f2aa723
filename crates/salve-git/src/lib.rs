//! salve-git runs git for salve. Every git call goes through one command builder, [`Git`], which
//! scrubs the environment variables that would point git at another repository, fixes the locale,
//! and never lets git prompt.
//!
//! ```no_run
//! use salve_git::Repo;
//!
//! let repo = Repo::discover(std::path::Path::new(".")).unwrap();
//! let blob = repo.blob_at("HEAD", "README.md").unwrap();
//! println!("{} bytes at HEAD", blob.map_or(0, |b| b.len()));
//! ```

mod cmd;
mod repo;

pub use cmd::{Git, GitError};
pub use repo::Repo;
