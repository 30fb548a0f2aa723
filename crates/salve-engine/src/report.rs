//! The apply report, as every operation returns it and every front end renders it: the types
//! of `salve_patch`'s report, re-exported so front ends depend on the engine alone.

pub use salve_patch::{
    numbered, Candidate, ChangeKind, ExcerptLine, FileReport, HunkReport, IssueKind, LineRange,
    Outcome, ParseIssue, Report, Rung, Scope, Status, DETAILED_HUNKS, MAX_MESSAGE_CHARS,
};
