//! The tools' arguments. Their JSON schemas (what `tools/list` shows) are derived from these
//! types; the doc comments become the properties' descriptions, written for a model reader.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

/// `apply_edit`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct ApplyEditParams {
    /// The edit: a unified or git diff, a Codex `*** Begin Patch` envelope, SEARCH/REPLACE
    /// blocks with the file path on the line before, old/new JSON
    /// (`{"path", "old_string", "new_string"}`, or an array of them), or a whole file as a path
    /// line followed by a fenced block. Prose around the edit is ignored; several files and
    /// formats may be mixed. Paths are relative to the repository root.
    pub edit: String,
    /// Place every hunk and return the report, but write nothing (default false).
    #[serde(default)]
    pub check_only: bool,
}

/// `str_replace`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct StrReplaceParams {
    /// The file to edit, relative to the repository root.
    pub path: String,
    /// The text to replace, copied from the file. It must occur exactly once (small whitespace
    /// or indentation drift is tolerated); include a few surrounding lines to make it unique.
    /// Empty creates the file with `new_str` as its content.
    pub old_str: String,
    /// The replacement text.
    pub new_str: String,
}

/// `write_file`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct WriteFileParams {
    /// The file to create or replace, relative to the repository root.
    pub path: String,
    /// The complete new content of the file. Placeholders that stand for omitted code
    /// (`// ... rest unchanged`) are refused rather than written.
    pub content: String,
}

/// `edit_file`: Cursor's tool, with its name and arguments, so an agent set up for a hosted
/// apply service can point at salve instead.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct EditFileParams {
    /// The file to edit, relative to the repository root.
    pub target_file: String,
    /// One sentence saying what the edit does, for the record (the merge does not read it).
    #[serde(default)]
    pub instructions: String,
    /// The changed regions of the file, each with a few unchanged lines before and after it
    /// copied from the file, separated by a comment in the file's language such as
    /// `// ... existing code ...` that stands for the unchanged lines between them. Start with
    /// such a comment unless the edit starts at the file's first line, end with one unless it
    /// runs to the file's end.
    pub code_edit: String,
}

/// `checkpoint`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct CheckpointParams {
    /// A note shown in `list_checkpoints`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub message: Option<String>,
}

/// `restore_checkpoint`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct RestoreParams {
    /// The checkpoint id (or a unique prefix of it), as `checkpoint` or `list_checkpoints`
    /// returned it.
    pub id: String,
}

/// `run_check`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct RunCheckParams {
    /// The program and its arguments, e.g. `["cargo", "test"]` (no shell). Omitted: the first
    /// check the repository's configuration allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub command: Option<Vec<String>>,
    /// The time limit in seconds; the whole process tree is killed when it passes. Omitted:
    /// the configured limit, which is also the most that can be asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub timeout_secs: Option<u64>,
}

/// `list_checkpoints`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct ListCheckpointsParams {
    /// At most this many checkpoints, newest first (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub limit: Option<usize>,
    /// Leave out this many of the newest first, to page through the rest (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub offset: Option<usize>,
    /// List the checkpoints of every linked worktree of the repository, each with its
    /// `worktree`, not only this work tree's own (default false). Another worktree's checkpoint
    /// cannot be restored here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_worktrees: Option<bool>,
}

/// `log`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct LogParams {
    /// At most this many runs, newest first (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub limit: Option<usize>,
    /// Only runs that ended with this status: `applied`, `already_applied`, `refused`,
    /// `checked`, `error`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub status: Option<String>,
}

/// `show_run`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct ShowRunParams {
    /// The run id (or a unique prefix of it), as `apply_edit` or `log` returned it.
    pub run: String,
}
