//! The apply report (DESIGN.md §3.3): one structure for the terminal, `--json`, the MCP tool
//! result and the repair prompt, so a model can correct its own edit in one round trip.

use serde::{Deserialize, Serialize};

use crate::edit::{Format, ParseIssue};

/// The rung of the placement ladder that placed a hunk (DESIGN.md §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rung {
    /// Bytes equal, line endings aside.
    Exact,
    /// An old/new text edit whose old text was found exactly once as a substring of the file
    /// (starting or ending mid-line); only that span was replaced.
    Substring,
    /// Equal once trailing whitespace is ignored.
    TrailingWs,
    /// Leading whitespace differs by one uniform delta; added lines are re-indented by it.
    Indent,
    /// Equal once whitespace is collapsed and Unicode folded (NFC, curly quotes, dashes, nbsp).
    Canonical,
    /// Equal once missing or extra blank lines inside or around the pattern are allowed.
    BlankLines,
    /// The pattern split at `...`-style lines; every piece found uniquely and in order.
    Elision,
    /// Outer context dropped symmetrically (a little); removed lines still match.
    ContextRelax,
    /// Placed on the baseline the model read, then merged into the current text.
    ThreeWay,
    /// Line-aligned edit-distance similarity, with a high score and a clear margin.
    Similar,
}

impl Rung {
    /// The name used in reports and `--json` (snake case).
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
    /// Placed; the file changes.
    Applied,
    /// The change is already in the file; nothing to write.
    AlreadyApplied,
    /// No rung found the lines the hunk changes.
    NotFound,
    /// Found in several places and no evidence chose one; the candidates are listed.
    Ambiguous,
    /// Overlaps another hunk, or the 3-way merge conflicts.
    Conflict,
    /// The edit is recognisable but broken.
    Malformed,
    /// The path is absolute, escapes the tree, points into `.git/`, or resolves to no unique
    /// file.
    PathRejected,
    /// The reply stops in the middle of the edit.
    Truncated,
    /// Placed, but not written because another part of the reply was refused (all or nothing).
    Skipped,
    /// Placed, but the file would not parse: it parsed cleanly before and the edit introduced
    /// a syntax error (the error's line and the hunk that caused it are reported).
    Syntax,
    /// Not written: the file to edit is binary (it holds NUL bytes), or the new text holds a
    /// control character (NUL, or another C0 control but tab, CR and LF) that the file did not
    /// have, so that written it would make a text file binary. Salve edits text only.
    Binary,
    /// The target is text in an encoding other than UTF-8 (Latin-1, UTF-16, ...); salve edits
    /// UTF-8 only, and would not guess at the bytes it writes back.
    Encoding,
    /// Not written: the new text holds a line the reply holds as edit syntax (a SEARCH/REPLACE
    /// marker, a fence or path line, a diff or Codex header, a Roo line marker) that the old
    /// file did not have, or a line two readings of the reply disagree on (syntax or content).
    EditSyntax,
    /// Not written: a bare file name that exists nowhere in the tree, while the reply itself
    /// places a file of that name in a directory (an import of `./components/Header`); the file
    /// is not created at the root on a guess.
    PathAmbiguous,
}

impl Status {
    /// The name used in reports and `--json` (snake case).
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
            Status::Syntax => "syntax",
            Status::Binary => "binary",
            Status::Encoding => "encoding",
            Status::EditSyntax => "edit_syntax",
            Status::PathAmbiguous => "path_ambiguous",
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
    /// First line, 1-based.
    pub start: usize,
    /// Last line, 1-based, inclusive.
    pub end: usize,
}

/// A place where a hunk could have gone, shown on failure so the model can see what it missed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The file lines of this candidate.
    pub lines: LineRange,
    /// Similarity of the pre-image to these lines, 0.0 to 1.0.
    pub score: f64,
    /// A short character-level diff between what the edit expected and what the file has, with
    /// invisible characters made visible (`·` space, `→` tab, `␍` carriage return, `⟨U+00A0⟩`).
    pub diff: String,
    /// The function, class, impl or heading line the candidate sits in, when one is found
    /// (see [`crate::describe_candidates`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub scope: Option<Scope>,
    /// The file's lines around the candidate, numbered: a few before, its own, a few after.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub excerpt: Vec<ExcerptLine>,
}

impl Candidate {
    /// A candidate at `lines` with its score and diff; no scope or excerpt yet.
    pub fn new(lines: LineRange, score: f64, diff: String) -> Self {
        Candidate {
            lines,
            score,
            diff,
            scope: None,
            excerpt: Vec::new(),
        }
    }
}

/// What happened to one hunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HunkReport {
    /// 0-based position of the hunk in the file's edit.
    pub index: usize,
    /// What happened to it.
    pub status: Status,
    /// The rung that placed it (or that found the ambiguous candidates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rung: Option<Rung>,
    /// Where it was placed, in the file before the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// The similarity score of a fuzzy placement, 0.0 to 1.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// How far the placement's score is ahead of the runner-up's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// On failure, the best places the hunk could have gone.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub candidates: Vec<Candidate>,
    /// Places found but not listed in `candidates`: beyond the few an ambiguous hunk shows, or
    /// every one once the report has detailed [`DETAILED_HUNKS`] failed hunks (see
    /// [`Report::details_omitted`]).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub candidates_omitted: usize,
    /// Why it failed, or a note on a success that needs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl HunkReport {
    /// The report of hunk `index` with `status` and nothing else filled in.
    pub fn new(index: usize, status: Status) -> Self {
        HunkReport {
            index,
            status,
            rung: None,
            lines: None,
            similarity: None,
            margin: None,
            candidates: Vec::new(),
            candidates_omitted: 0,
            message: None,
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Failed hunks per report told in detail (message and candidates); later ones keep their
/// status only. A reply of 100,000 hunks that fit nowhere would otherwise print megabytes.
pub const DETAILED_HUNKS: usize = 25;

/// Characters of a hunk or file message kept; the rest is counted.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// The kind of change made to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Changed hunk by hunk.
    Modify,
    /// Created.
    Create,
    /// Deleted.
    Delete,
    /// Moved (and possibly changed).
    Rename,
    /// Replaced whole.
    Replace,
}

impl ChangeKind {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Modify => "modify",
            ChangeKind::Create => "create",
            ChangeKind::Delete => "delete",
            ChangeKind::Rename => "rename",
            ChangeKind::Replace => "replace",
        }
    }
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
    /// The kind of change.
    pub change: ChangeKind,
    /// The format the edit was written in.
    pub format: Format,
    /// `Applied`, `AlreadyApplied`, or why the file was refused.
    pub status: Status,
    /// One report per hunk, in the edit's order.
    pub hunks: Vec<HunkReport>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Why the file was refused, or a note on a success that needs one.
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
    /// What happened overall.
    pub outcome: Outcome,
    /// True when nothing was written because `--check` was given.
    pub check_only: bool,
    /// One report per file the reply edits.
    pub files: Vec<FileReport>,
    /// Problems with the reply as a whole or with edits that never reached a file.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub issues: Vec<ParseIssue>,
    /// Repairs made while reading the reply.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
    /// Failed hunks whose message and candidates were left out: every one after the first
    /// [`DETAILED_HUNKS`] failed hunks of the report (their `status` stays).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub details_omitted: usize,
}

impl Report {
    /// The process exit code the CLI uses: 0 applied or already applied, 1 refused.
    pub fn exit_code(&self) -> i32 {
        match self.outcome {
            Outcome::Applied | Outcome::AlreadyApplied => 0,
            Outcome::Partial | Outcome::Refused => 1,
        }
    }

    /// What did not land, in one line: `path: status (message)` for each file that was
    /// refused, then the reply's own issues. Empty when nothing was refused. Every front end
    /// (the MCP tools' summaries, the page, the repair prompt) says a refusal this way.
    pub fn refusals(&self) -> String {
        let mut parts: Vec<String> = self
            .files
            .iter()
            .filter(|f| !f.status.is_success() && f.status != Status::Skipped)
            .map(|f| {
                let message = f
                    .message
                    .clone()
                    .or_else(|| f.hunks.iter().find_map(|h| h.message.clone()));
                match message {
                    Some(m) => format!("{}: {} ({m})", f.path, f.status.as_str()),
                    None => format!("{}: {}", f.path, f.status.as_str()),
                }
            })
            .collect();
        parts.extend(self.issues.iter().map(|i| match &i.path {
            Some(p) => format!("{p}: {}", i.message),
            None => i.message.clone(),
        }));
        parts.join("; ")
    }

    /// The verdict in one line: `applied: 2 files (+8 -2)`, `already applied`,
    /// `refused: <refusals>`, `partial: ...`, with `check only` when nothing was written by
    /// design.
    pub fn summary(&self) -> String {
        let (added, removed) = self
            .files
            .iter()
            .filter(|f| f.status == Status::Applied)
            .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
        let applied = self
            .files
            .iter()
            .filter(|f| f.status == Status::Applied)
            .count();
        let files = if applied == 1 { "file" } else { "files" };
        let refusals = match self.refusals() {
            r if r.is_empty() => "no edit could be used".to_owned(),
            r => r,
        };
        match (self.outcome, self.check_only) {
            (Outcome::Applied, true) => {
                format!("check only: {applied} {files} would change (+{added} -{removed})")
            }
            (Outcome::Applied, false) => {
                format!("applied: {applied} {files} (+{added} -{removed})")
            }
            (Outcome::AlreadyApplied, _) => "already applied".to_owned(),
            (Outcome::Partial, _) => format!(
                "partial: {applied} {files} written (+{added} -{removed}), refused: {refusals}"
            ),
            (Outcome::Refused, _) => format!("refused: {refusals}"),
        }
    }

    /// Keep the report readable and sendable whatever the reply: the first [`DETAILED_HUNKS`]
    /// failed hunks keep their message and candidates, later ones their status only (counted
    /// in `details_omitted`, their candidates in `candidates_omitted`), and every message is cut
    /// to [`MAX_MESSAGE_CHARS`], saying how much was left out.
    pub fn limit_details(&mut self) {
        let mut detailed = 0;
        for file in &mut self.files {
            clip_message(&mut file.message);
            for hunk in &mut file.hunks {
                clip_message(&mut hunk.message);
                let failed = !hunk.status.is_success() && hunk.status != Status::Skipped;
                if !failed || (hunk.candidates.is_empty() && hunk.message.is_none()) {
                    continue;
                }
                if detailed < DETAILED_HUNKS {
                    detailed += 1;
                    continue;
                }
                hunk.candidates_omitted += hunk.candidates.len();
                hunk.candidates.clear();
                hunk.message = None;
                self.details_omitted += 1;
            }
        }
    }

    /// The report as pretty-printed JSON, the form `--json` and the MCP tool print.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

fn clip_message(message: &mut Option<String>) {
    if let Some(text) = message {
        if text.len() > MAX_MESSAGE_CHARS {
            *text = crate::diag::clip(text, MAX_MESSAGE_CHARS);
        }
    }
}

/// The line that opens the function, class, impl, method or section a candidate sits in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    /// Its line number, 1-based.
    pub line: usize,
    /// The line, without its indentation.
    pub text: String,
}

/// One line of the file, numbered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcerptLine {
    /// 1-based line number in the file before the edit.
    pub line: usize,
    /// The line as the file has it, without its line ending.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::Format;

    fn failed_hunk(index: usize, message: String) -> HunkReport {
        let mut hunk = HunkReport::new(index, Status::NotFound);
        hunk.message = Some(message);
        hunk.candidates = vec![Candidate::new(
            LineRange { start: 1, end: 1 },
            0.5,
            "1: x".into(),
        )];
        hunk
    }

    #[test]
    fn limit_details_keeps_the_first_failures_and_counts_the_rest() {
        let mut hunks: Vec<HunkReport> = (0..DETAILED_HUNKS + 5)
            .map(|i| failed_hunk(i, "y".repeat(MAX_MESSAGE_CHARS + 10)))
            .collect();
        hunks.insert(0, HunkReport::new(99, Status::Applied));
        let mut report = Report {
            outcome: Outcome::Refused,
            check_only: false,
            files: vec![FileReport {
                path: "a.txt".into(),
                requested_path: None,
                new_path: None,
                change: ChangeKind::Modify,
                format: Format::Unified,
                status: Status::NotFound,
                hunks,
                added: 0,
                removed: 0,
                message: None,
            }],
            issues: Vec::new(),
            notes: Vec::new(),
            details_omitted: 0,
        };
        report.limit_details();
        let hunks = &report.files[0].hunks;
        assert_eq!(report.details_omitted, 5);
        assert_eq!(
            hunks.len(),
            DETAILED_HUNKS + 6,
            "every hunk keeps its entry"
        );
        let detailed: Vec<&HunkReport> = hunks.iter().filter(|h| h.message.is_some()).collect();
        assert_eq!(detailed.len(), DETAILED_HUNKS);
        assert!(detailed.iter().all(|h| h.candidates.len() == 1));
        let message = detailed[0].message.as_deref().unwrap_or_default();
        assert!(message.ends_with("… 10 more characters"), "{message}");
        let last = &hunks[DETAILED_HUNKS + 5];
        assert_eq!((last.candidates.len(), last.candidates_omitted), (0, 1));
        assert_eq!(last.status, Status::NotFound);
        let json = report.to_json();
        assert!(json.contains("\"details_omitted\": 5"), "{json}");
        assert!(json.contains("\"candidates_omitted\": 1"), "{json}");
    }
}
