//! salve-patch is the pure core of salve: text in, report out. It has no file, git or network
//! access.
//!
//! It does three jobs:
//! 1. [`parse::extract`] reads a whole model reply (prose, fences, markers) and lowers every edit
//!    in it, whatever its format, to the [`edit`] model.
//! 2. [`apply::apply_hunks`] places each hunk on a file's text by the placement ladder of
//!    [`locate`], strictly: it never takes the first or the nearest of several matches, and it
//!    refuses rather than guess.
//! 3. [`report`] describes what happened to every file and hunk, in a form a model can act on.
//!
//! ```
//! use salve_patch::{apply, parse, edit::FileChange};
//!
//! let reply = "Here is the fix:\n\n```diff\n--- a/greet.txt\n+++ b/greet.txt\n@@ -1,2 +1,2 @@\n hello\n-wrold\n+world\n```\n";
//! let extraction = parse::extract(reply);
//! let FileChange::Modify { hunks } = &extraction.edits[0].change else { panic!() };
//! let outcome = apply::apply_hunks("hello\nwrold\n", hunks, None);
//! assert_eq!(outcome.new_text.as_deref(), Some("hello\nworld\n"));
//! ```

pub mod apply;
pub mod diag;
pub mod edit;
pub mod locate;
pub mod merge;
mod ops;
pub mod parse;
pub mod render;
pub mod report;
pub mod splice;
pub mod text;
