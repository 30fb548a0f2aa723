//! salve-engine does salve's work on a real directory: it ties the pure core (`salve-patch`) to
//! files and git.
//!
//! Today it holds the `apply` job: read a model's reply, guard and resolve every path it names,
//! read the files and their baseline blobs, place every hunk in memory, then write all files or
//! none.
//!
//! ```no_run
//! use salve_engine::apply::{apply, Options};
//!
//! let reply = std::fs::read_to_string("reply.md").unwrap();
//! let outcome = apply(&reply, &Options::new(".")).unwrap();
//! println!("{}", outcome.report.to_json());
//! ```
//!
//! The building blocks are public so other front ends (the MCP server, the fix loop) can reuse
//! them: [`paths`] (the path guard and resolution), [`tree`] (listing the work tree),
//! [`baseline`] (blobs at the commit the model saw) and [`transaction`] (atomic multi-file
//! writes).

pub mod apply;
pub mod ask;
pub mod baseline;
pub mod checkpoint;
pub mod commit;
pub mod config;
pub mod doctor;
pub mod error;
pub mod paths;
pub mod record;
pub mod restore;
pub mod transaction;
pub mod tree;
pub mod undo;

pub use error::{Classified, Kind};
