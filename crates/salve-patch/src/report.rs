//! The apply report (DESIGN.md §3.3): one structure for the terminal, `--json`, the MCP tool
//! result and the repair prompt, so a model can correct its own edit in one round trip.

use serde::{Deserialize, Serialize};

use crate::edit::{Format, ParseIssue};

/// The rung of the placement ladder that placed a hunk (DESIGN.md §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rung {
    Exact,
    /// An old/new text edit whose old text was found exactly once as a substring of the file
    /// (starting or ending mid-line); only that span was replaced.
    Substring,
    TrailingWs,
    Indent,
    Canonical,
    BlankLines,
    Elision,
    ContextRelax,
    ThreeWay,
    Similar,
}

impl Rung {
    pub fn as_str(self) -> &'static str {
        match self {
            Rung::Exact => "exact",
            Rung::Substring => "substring",
            Rung::TrailingWs => "trailing_ws",
            Rung::Indent => "indent",
            Rung::Canonical => "canonical",
            Rung::BlankLines => "blank_lines",
            Rung::Elision => "elision",
            Rung::ContextRelax => "context_relax",
            Rung::ThreeWay => "three_way",
            Rung::Similar => "similar",
        }
    }

    /// Whether the rung needed anything looser than byte equality.
    pub fn is_fuzzy(self) -> bool {
        !matches!(self, Rung::Exact | Rung::Substring)
    }
}

/// The outcome of one hunk, or of a whole file when it has no hunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Applied,
    AlreadyApplied,
    NotFound,
    Ambiguous,
    Conflict,
    Malformed,
    PathRejected,
    Truncated,
    /// Placed, but not written because another part of the reply was refused (all or nothing).
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Applied => "applied",
            Status::AlreadyApplied => "already_applied",
            Status::NotFound => "not_found",
            Status::Ambiguous => "ambiguous",
            Status::Conflict => "conflict",
            Status::Malformed => "malformed",
            Status::PathRejected => "path_rejected",
            Status::Truncated => "truncated",
            Status::Skipped => "skipped",
        }
    }

    /// Applied or already applied.
    pub fn is_success(self) -> bool {
        matches!(self, Status::Applied | Status::AlreadyApplied)
    }
}

/// An inclusive 1-based line range in the file as it was before the edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineRange {
    pub start: usize,
    pub end: usize,
}

/// A place where a hunk could have gone, shown on failure so the model can see what it missed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub lines: LineRange,
    /// Similarity of the pre-image to these lines, 0.0 to 1.0.
    pub score: f64,
    /// A short character-level diff between what the edit expected and what the file has, with
    /// invisible characters made visible (`·` space, `→` tab, `␍` carriage return, `⟨U+00A0⟩`).
    pub diff: String,
}

/// What happened to one hunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HunkReport {
    /// 0-based position of the hunk in the file's edit.
    pub index: usize,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rung: Option<Rung>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub candidates: Vec<Candidate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl HunkReport {
    pub fn new(index: usize, status: Status) -> Self {
        HunkReport {
            index,
            status,
            rung: None,
            lines: None,
            similarity: None,
            margin: None,
            candidates: Vec::new(),
            message: None,
        }
    }
}

/// The kind of change made to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Modify,
    Create,
    Delete,
    Rename,
    Replace,
}

/// What happened to one file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileReport {
    /// The resolved path in the tree (the path as written when it could not be resolved).
    pub path: String,
    /// The path as the reply wrote it, when resolution changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_path: Option<String>,
    /// The destination of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    pub change: ChangeKind,
    pub format: Format,
    pub status: Status,
    pub hunks: Vec<HunkReport>,
    pub added: usize,
    pub removed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The outcome of the whole reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every file was written (or would be, under `--check`).
    Applied,
    /// Nothing needed to change: every edit was already in place.
    AlreadyApplied,
    /// `--partial`: some files were written, others refused.
    Partial,
    /// Nothing was written.
    Refused,
}

/// The report of one `apply`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub outcome: Outcome,
    /// True when nothing was written because `--check` was given.
    pub check_only: bool,
    pub files: Vec<FileReport>,
    /// Problems with the reply as a whole or with edits that never reached a file.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub issues: Vec<ParseIssue>,
    /// Repairs made while reading the reply.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
}

impl Report {
    /// The process exit code the CLI uses: 0 applied or already applied, 1 refused.
    pub fn exit_code(&self) -> i32 {
        match self.outcome {
            Outcome::Applied | Outcome::AlreadyApplied => 0,
            Outcome::Partial | Outcome::Refused => 1,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
