//! salve-patch is the pure core of salve: text in, report out. It has no file, git or network
//! access.
//!
//! It does three jobs:
//! 1. [`extract`] reads a whole model reply (prose, fences, markers) and lowers every edit in it,
//!    whatever its format, to one model: [`FileEdit`]s made of [`Hunk`]s. [`looks_like_edit`]
//!    answers the cheaper question "is there an edit in this reply at all?".
//! 2. [`apply_hunks`] places each hunk on a file's text by the placement ladder (DESIGN.md §3.2),
//!    strictly: it never takes the first or the nearest of several matches, and it refuses
//!    rather than guess. [`replace_whole`] and [`create_text`] do the same for whole files,
//!    [`merge3`] is the 3-way merge behind the baseline rung.
//! 3. [`Report`] describes what happened to every file and hunk, in a form a model can act on;
//!    [`unified_diff`] renders a change for people.
//!
//! The modules are private: this page lists the whole public API.
//!
//! ```
//! use salve_patch::{apply_hunks, extract, looks_like_edit, FileChange, Status};
//!
//! let reply = "Here is the fix:\n\n```diff\n--- a/greet.txt\n+++ b/greet.txt\n@@ -1,2 +1,2 @@\n hello\n-wrold\n+world\n```\n";
//! assert!(looks_like_edit(reply));
//! let extraction = extract(reply);
//! let FileChange::Modify { hunks } = &extraction.edits[0].change else { panic!() };
//! let outcome = apply_hunks("hello\nwrold\n", hunks, None);
//! assert_eq!(outcome.status, Status::Applied);
//! assert_eq!(outcome.new_text.as_deref(), Some("hello\nworld\n"));
//! ```

#![deny(missing_docs)]
#![deny(unreachable_pub)]

mod apply;
mod diag;
mod edit;
mod excerpt;
mod in_order;
mod locate;
mod merge;
mod notebook;
mod ops;
mod parse;
mod placeholder;
mod render;
mod report;
mod snippet;
mod splice;
#[cfg(test)]
mod test_rng;
mod text;

pub use apply::{
    apply_hunks, apply_hunks_lazy, create_text, new_file_from_insertion, replace_whole,
    replace_whole_3way, replace_whole_with, FileOutcome, Whole,
};
pub use edit::{
    Anchor, BareNamed, Extraction, FileChange, FileEdit, Format, Hunk, HunkLine, IssueKind,
    LineKind, ParseIssue, TextPair,
};
pub use excerpt::{describe_candidates, numbered, ExcerptLine, Scope};
pub use in_order::apply_in_order;
pub use merge::{merge3, transplant, MergeConflict};
pub use notebook::{apply_notebook, notebook_python, notebook_source_value, notebook_sources};
pub use parse::{extract, extract_value, is_placeholder, looks_like_edit, ReplySyntax};
pub use render::{unified_diff, unified_diff_spliced};
pub use report::{
    Candidate, ChangeKind, FileReport, HunkReport, LineRange, Outcome, Report, Rung, Status,
    DETAILED_HUNKS, MAX_MESSAGE_CHARS,
};
pub use splice::Splice;
pub use text::is_binary;

/// Internals the timing test (`tests/perf.rs`) measures on their own: not part of the API, and
/// free to change without notice.
#[doc(hidden)]
pub mod internals {
    pub use crate::locate::rungs::index::FileIndex;
    pub use crate::text::{Doc, Form};
}
