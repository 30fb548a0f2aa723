//! salve-engine does salve's work on a real directory: it ties the pure core (`salve-patch`) to
//! files, git, the record and the model providers. It is the one front door: the CLI, the MCP
//! server and the page each parse their input, call one operation here and render its outcome.
//!
//! Every operation is a module with its `Options`, a serializable outcome and an `Error` that
//! implements [`Classified`] (a [`Kind`], a stable code and a hint in domain words):
//!
//! | operation | does |
//! |---|---|
//! | [`apply::apply`] | place a reply's edits, write all files or none, checkpoint and record |
//! | [`ask::ask`] | build a prompt, ask the configured chain, apply the answer, record |
//! | [`checkpoint::create`], [`checkpoint::list`], [`checkpoint::drop`], [`checkpoint::diff`] | snapshots of the work tree; [`checkpoint::kept`] and [`checkpoint::stamp`] read the catalog cheaply for a page |
//! | [`restore::restore`], [`undo::undo`] | bring a snapshot back; take the last change back ([`undo::last_restore`], [`undo::undo_restore`]: a restore while it is the newest change) |
//! | [`rewind::rewind`], [`rewind::preview`] | back to just before a recorded run; later runs marked rewound |
//! | [`commit::commit`] | commit HEAD plus exactly the named files |
//! | [`record::log`], [`record::show`], [`record::export`], [`record::import`], [`record::gc`] | the record ([`record::stamp`], [`record::runs_by_checkpoint`] for a page) |
//! | [`doctor::doctor`] | what is installed and configured |
//! | [`trust::trust`] | list, trust or revoke the repository configuration that widens what salve does |
//! | [`fix`]: [`fix::check::run`], [`fix::failures::extract`], [`fix::classify::classify`] | run a check, read its failures, tell code from environment |
//!
//! Runs are written through one [`record::Recorder`], so an apply report means the same in
//! every kind of run.
//!
//! ```no_run
//! use salve_engine::apply::{apply, Options};
//!
//! let reply = std::fs::read_to_string("reply.md").unwrap();
//! let outcome = apply(&reply, &Options::new(".")).unwrap();
//! println!("{}", serde_json::to_string(&outcome).unwrap());
//! ```
//!
//! The building blocks are public so the fix loop can reuse them: [`paths`] (the path guard and
//! resolution), [`tree`] (listing the work tree), [`baseline`] (blobs at the commit the model
//! saw) and [`transaction`] (atomic multi-file writes).
//!
//! [`fix`] holds the fix loop's parts: the guard against repairs that weaken the check,
//! persisted budgets, learned and pinned repair rules, and the strictness levels.

pub mod apply;
pub mod ask;
pub mod baseline;
pub mod checkpoint;
pub mod commit;
pub mod config;
pub mod doctor;
pub mod error;
pub mod fix;
pub mod interrupt;
pub mod lock;
pub mod paths;
pub mod record;
pub mod report;
pub mod restore;
pub mod rewind;
pub mod transaction;
pub mod tree;
pub mod trust;
pub mod undo;

pub use error::{Classified, Kind};
