//! What each tool tells the model that reads `tools/list`: the input formats, what happens on
//! failure, and what is safe to repeat.

/// The server's instructions, sent in the handshake.
pub const INSTRUCTIONS: &str = "salve edits files in this repository safely. Prefer apply_edit \
(any diff or edit format) or str_replace / write_file over writing files yourself: every hunk \
is placed exactly or refused with a report that shows the closest candidates, all files are \
written or none, and a checkpoint is taken before every change (undo reverts the last one, \
restore_checkpoint any). run_check runs the repository's configured checks and returns \
structured failures. Paths are relative to the repository root.";

/// `apply_edit`.
pub const APPLY_EDIT: &str = "Apply an edit to files in the repository: every hunk is placed \
exactly, or nothing is written. `edit` may be any of: a unified or git diff (line numbers and \
hunk counts may be wrong; context finds the place); a Codex `*** Begin Patch` envelope; \
SEARCH/REPLACE blocks (`<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE`) with the file path on \
the line before; old/new JSON (`{\"path\": ..., \"old_string\": ..., \"new_string\": ...}` or an \
array of them); a whole file as a path line then a fenced block. Prose around the edit is \
ignored; several files may be edited at once. Placement tolerates drift (moved code, \
whitespace, indentation) but never guesses: a hunk that matches several places, or none \
clearly, is refused. On refusal the result has isError true, nothing is written, and \
report.files[].hunks[] give each failed hunk's status (not_found, ambiguous, conflict, ...) and \
its best candidates with line ranges, similarity, a character diff, the enclosing scope (the \
function, class or heading line) and the file's numbered lines around it (excerpt), so you can \
correct the edit and call again. Applying an edit that is already in place succeeds with outcome \
`already_applied` and writes nothing, so repeating a call is safe. Line endings, BOM and the \
final newline of each file are kept. Before writing, a checkpoint is taken (`checkpoint` in the \
result; `undo` reverts) and the run is recorded (`run`; see show_run). check_only: place and \
report, write nothing.";

/// `str_replace`.
pub const STR_REPLACE: &str = "Replace one occurrence of `old_str` with `new_str` in the file \
at `path`. `old_str` must match exactly one place in the file (whitespace and indentation \
drift is tolerated); if it matches several places or none, the call fails with isError true, \
writes nothing, and the report lists the candidate places: add surrounding lines to `old_str` \
to make it unique and call again. An empty `old_str` creates the file. Calling again after it \
succeeded is safe: the change is reported as `already_applied`. The file's line endings are \
kept. A checkpoint is taken before writing (undo reverts) and the run is recorded.";

/// `write_file`.
pub const WRITE_FILE: &str = "Create a file, or replace the whole content of one, at `path`. \
`content` must be the complete file: a placeholder standing for omitted code (`// ... rest \
unchanged`) is refused, nothing written. For changes to part of a large file prefer \
str_replace or apply_edit. Writing the content a file already has succeeds as \
`already_applied` and writes nothing. The file's line endings are kept. Paths must stay inside \
the repository. A checkpoint is taken before writing (undo reverts) and the run is recorded.";

/// `edit_file`.
pub const EDIT_FILE: &str = "Edit a file by giving only what changes, as Cursor's edit_file: `code_edit` holds the changed regions, each with 2-3 unchanged lines before and after it copied from the file, and between regions a comment in the file's language that stands for the unchanged lines in between (`// ... existing code ...`, `# ... existing code ...`, `<!-- ... -->`). Start with such a comment unless the edit starts at the file's first line, and end with one unless it runs to the file's end. Merged without a model: each region is anchored by its unchanged first and last lines, which must stand in the file in one place only and in order; the region replaces what the file has between them. A region whose anchors fit several places, none, or only out of order is refused with isError true and nothing written; the report names the region and lists the candidate line ranges, so add a line of context and call again. Markers are never written. A file that does not exist is created from code_edit when it holds no marker. An edit already in place succeeds as `already_applied`. A checkpoint is taken before writing (undo reverts) and the run is recorded.";

/// `checkpoint`.
pub const CHECKPOINT: &str = "Snapshot the whole work tree (tracked and untracked files, not \
ignored ones) and the staged state into a private git ref, without touching files, the index \
or HEAD. Returns the checkpoint `id` for restore_checkpoint. Safe to call at any time; every \
write by this server already takes one first.";

/// `list_checkpoints`.
pub const LIST_CHECKPOINTS: &str = "List the checkpoints of this repository, newest first: id, \
time (Unix seconds), message, the HEAD it was taken on and how many files differed. `limit` \
(default 20) and `offset` page through them; `total` says how many there are. Read-only.";

/// `restore_checkpoint`.
pub const RESTORE_CHECKPOINT: &str = "Bring back the files and staged state of a checkpoint \
(`id` from checkpoint or list_checkpoints; a unique prefix works). The current state is \
checkpointed first, so undo takes the restore back. HEAD is never moved. Refused, changing \
nothing, when untracked files it would overwrite are not in any checkpoint or when a merge or \
rebase is in progress; the error says which.";

/// `undo`.
pub const UNDO: &str = "Take back the most recent change salve made in this work tree (an \
apply_edit, str_replace, write_file, restore or undo) by restoring the checkpoint taken just \
before it. A second undo redoes. Fails with isError true, changing nothing, when there is \
nothing to undo.";

/// `run_check`.
pub const RUN_CHECK: &str = "Run a check command (build, tests, linter) in the repository and \
return: passed, the exit status (`exited` with a code, `timed_out`, `not_found`, ...), the \
failures read from the output (file, line, column, message, kind, tool), a classification of a \
failure as `environment` (missing tool, network, disk: do not edit code for it) or `code`, and \
an excerpt of the output (head and tail). `command` is the program and its arguments, no \
shell; omit it to run the first allowed check. Only the checks the user allowed are run: \
another command fails with isError true and the list of allowed ones. The process tree is killed at the time limit (`timeout_secs`, capped by the \
configuration). A failing check is a normal result, not an error. Does not change files \
itself.";

/// `log`.
pub const LOG: &str = "List recorded runs (every apply_edit, str_replace and write_file is \
one), newest first: id, status (`applied`, `already_applied`, `refused`, `checked`, ...), \
start time, files touched and lines added and removed. Read-only.";

/// `show_run`.
pub const SHOW_RUN: &str = "Show one recorded run in full: its patch sets with per-file \
status, attempts, decisions, the artifacts kept (the edit text, the report) and the unified \
diffs it applied (`applied_diffs`). `run` is an id or unique prefix from log or an apply \
result. Read-only.";
