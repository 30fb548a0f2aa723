//! Extracting edits from a model's reply.
//!
//! [`extract`] reads a whole reply — prose, Markdown fences, markers — finds every edit in it,
//! whatever its format, and lowers each to the shared [`crate::edit`] model, in reply order. It
//! never fails and never panics: what cannot be used becomes a [`ParseIssue`], and every repair
//! made on the way is listed in [`Extraction::notes`]. It runs in time linear in the reply size.
//!
//! # Grammar
//!
//! The reply is read line by line (`\n` or `\r\n`). Lines that belong to no edit are prose and
//! are ignored, except that a *path line* (see below) is remembered for the next block.
//!
//! ```text
//! reply     := ( prose | wrapper | edit )*
//! wrapper   := markers | fence
//! markers   := "<<<AI_DIFF_START>>>" reply "<<<AI_DIFF_END>>>"        (end missing: truncated)
//! fence     := indent? ("```" | "~~~") "`"* info NL content close      (close: same char, at least
//!              as long, indented no deeper, nothing after it; missing at the end of the reply:
//!              truncated when the content is an edit)
//! edit      := git-diff | unified | codex | search-replace | json | whole-file | tool-xml
//! ```
//!
//! Fences also include aider's tag fences (`<source>`, `<code>`, `<pre>`, `<codeblock>`,
//! `<sourcecode>` alone on a line, closed by the end tag) and fences of any length (```` ``` ````
//! to ```` `````` ```` and more, backticks or tildes).
//!
//! **Agent tool calls.** Cline/Roo XML (`<apply_diff>`, `<replace_in_file>`, `<write_to_file>`):
//! grammar in `parse/tool_xml.rs`. Agent tool-call JSON (Claude Code `Edit`/`MultiEdit`/`Write`, Gemini
//! CLI `replace`/`write_file`, OpenCode), with `replace_all` / `expected_replacements` held as
//! exact occurrence counts and `{file_path, content}` as a whole-file write: grammar in
//! `parse/tool_json.rs`; [`extract_value`] reads one such value given alone (an MCP argument).
//!
//! **Nothing dropped, no edit syntax written.** Content holding edit syntax at its top level (a
//! SEARCH/REPLACE marker of any shape, a diff or hunk header, `*** Begin Patch`) is read as an
//! edit and never as a whole file; if it is not a usable edit it is `Malformed`, naming the line.
//! A line shaped like a SEARCH/REPLACE marker that no reader accepts (`<<< SEARCH`,
//! `-- SEARCH`, `SEARCH >>>>>>>`, git conflict markers) is `Malformed` for the whole reply. A
//! block after a line that is only a bare name (`notes`) that yields no edit is `Malformed` for
//! that name rather than ignored. Text between SEARCH/REPLACE blocks in one fence (`...`) does
//! not end the fence's blocks. Paths written with backslashes are read as `/` paths.
//!
//! **Fences.** A fence's content is read as a nested reply, except that:
//! - a fence with a *path attached* (see below) whose content does not start with an edit is a
//!   *whole-file* block (so a README holding a diff example stays a README); a nested read that
//!   finds nothing falls back to a whole-file block too;
//! - a ```` ```diff ```` / ```` ```patch ```` fence is never a whole-file block; with a path
//!   attached, hunks without file headers (even a body without `@@`) belong to that path;
//! - a fence whose content starts with a SEARCH/REPLACE block is read block by block first and
//!   closed after the last block, so that an inner ```` ``` ```` in the replaced text cannot end
//!   it early.
//!
//! **Path lines.** A line that is only a path, possibly decorated: `src/lib.rs`, `src/lib.rs:`,
//! `**src/lib.rs**`, `` `src/lib.rs` ``, `File: src/lib.rs`, `### src/lib.rs`, `- src/lib.rs`,
//! `<path>src/lib.rs</path>`. A *strong* path contains a `/` or a file extension (or is a
//! well-known name such as `Makefile`) and no spaces unless quoted or backticked. A path line
//! applies to the next fence or SEARCH block when only blank lines come between. A fence info
//! string can name a strong path too: ```` ```rust src/lib.rs ````, ```` ```src/lib.rs ````,
//! ```` ```rust:src/lib.rs ````, ```` ```rust title="src/lib.rs" ````.
//! *Weak* paths serve only formats that prove by themselves that an edit is meant (SEARCH/REPLACE
//! blocks, diff hunks): a bare name alone on its line (`compile`, not `Summary:`), or the single
//! backticked path of a prose line (`` Update `src/lib.rs` like this: ``). A weak path makes a
//! whole-file block only for a script (content starting with `#!`).
//!
//! **git and unified diffs.**
//! ```text
//! git-diff  := "diff --git " path path NL ext-header* (file-header hunk*)?
//! ext-header:= "old mode" | "new mode" | "new file mode" | "deleted file mode" | "index" |
//!              "similarity index" | "dissimilarity index" | "rename from" | "rename to" |
//!              "copy from" | "copy to" | "Binary files ... differ" | "GIT binary patch"
//! unified   := "--- " path NL "+++ " path NL hunk+
//! hunk      := "@@" ( " -a[,b] +c[,d] @@" heading? | " ... @@" heading? | heading? ) NL body
//! body      := ( " " text | "+" text | "-" text | "\ No newline at end of file" )*
//! ```
//! Paths may be C-quoted; `a/`/`b/` prefixes are removed; a tab or a date after the path is a
//! timestamp; `/dev/null` on the old side creates, on the new side deletes. A header's counts
//! are recomputed from the body (a difference is noted); its old start becomes
//! [`crate::edit::Hunk::old_start`], a hint only; the heading after the second `@@` becomes a
//! scope; `-0,0` pins the hunk to the start of the file (a file whose only hunk is `-0,0` is still
//! a Modify unless `/dev/null` or `new file mode` says it is new; the applier creates it only when
//! it does not exist). `index` and `similarity index` lines are
//! ignored (without a note: they are git's, not a fault of the reply). A mode change alone is a Modify without hunks carrying the new mode (parsed as octal:
//! `100755` is `0o100755`). A binary diff or a copy is a `Malformed` issue for its path. Hunks
//! with no file header and no path attached are `Malformed` for the whole reply.
//!
//! **Codex envelopes.**
//! ```text
//! codex     := "*** Begin Patch" NL op* "*** End Patch"        (end missing at the end of the
//!                                                              reply: truncated)
//! op        := "*** Add File: " path NL ("+" text NL)*
//!            | "*** Delete File: " path NL
//!            | "*** Update File: " path NL ("*** Move to: " path NL)? chunk*
//! chunk     := ("@@" scope? NL)* body ("*** End of File" NL)?
//! ```
//! Several stacked `@@ scope` lines all go into the hunk's scopes; a chunk right after the
//! Update line needs no `@@`; `*** End of File` pins the hunk to the end of the file;
//! `*** Move to:` makes a rename. Text inside the envelope that is not a patch line is
//! `Malformed` for the file before it; when no `***` line follows at all, the envelope ends there
//! (its end line was forgotten, prose follows) and no truncation is reported. Blank lines at the
//! end of a chunk are dropped rather than read as context.
//!
//! **SEARCH/REPLACE** (aider, Cline, Roo).
//! ```text
//! block     := "<"{5,} " SEARCH" NL (":start_line:" N NL)? ("-------" NL)?
//!              search-lines "="{5,} NL replace-lines ">"{5,} " REPLACE"
//! ```
//! (`------- SEARCH` / `+++++++ REPLACE` are read as well.) The path comes from a path line just
//! before the block or its fence, from the fence info string, or else from the previous block.
//! When text between the markers holds several `=======` lines, an odd count is split at the
//! middle one and an even count is `Malformed`. A block is lowered to one hunk by a line diff of
//! search against replace; `:start_line:` becomes the hunk's old start. **An empty (or
//! blank-only) SEARCH creates the file** with the REPLACE text; salve never reads it as "append".
//!
//! **old/new JSON.** An object, an array of objects, or an object with an `edits` array, each with
//! a path (`path`, `file`, `file_path`, `filePath`, `filename`) and old/new text (`old_string` /
//! `new_string`, `old` / `new`, `search` / `replace`, `old_str` / `new_str`, `oldString` /
//! `newString`). Lowered like SEARCH/REPLACE; an empty old text creates the file. JSON that stops
//! before it closes is truncated. Old text must be whole lines: salve's hunks are line based.
//!
//! **Whole files.** A strong path line (or fence info path) followed by a fenced block whose
//! content is not an edit replaces the file (created when missing). The content always ends with
//! a newline (a fence cannot say otherwise), so appliers should keep the file's own final-newline
//! state. An empty block is `Malformed`.
//!
//! # Repairs and refusals
//!
//! - A blank line inside a hunk body is a context line `""` when the hunk goes on after it (the
//!   model lost the leading space); trailing blank lines are taken only as far as the header
//!   counts ask for them.
//! - A line without a prefix between two added lines is an added line (a forgotten `+`). A
//!   context or removed line between two added lines is listed in `maybe_added`.
//! - An elision line (`...`, `// ...`, `# ... existing code ...`) in a context position is kept as
//!   a context line for the applier's elision rung. Any other unprefixed line with the hunk going
//!   on after it (and the header counts not yet met) is `Malformed`: context that lost its space
//!   cannot be told from a removed line that lost its `-`. An unprefixed line where the hunk does
//!   not go on ends the hunk (prose).
//! - After the header counts are met, a blank line followed by a `-` line ends the hunk (a
//!   Markdown list after a bare diff); other prefixed lines still extend it (counts too small).
//! - Line-number prefixes (`12 | `, `12: `, `12<TAB>`) are stripped from SEARCH, REPLACE, JSON
//!   and whole-file text only when every line has one, with consecutive numbers.
//! - A lazy placeholder (`// ... existing code ...`, `# ... rest unchanged`, `... (unchanged)`,
//!   `<!-- ... rest ... -->`) or a comment of only dots (`// ...`) in added lines, new-file
//!   content or whole-file content is a `Lazy` issue for that path; in whole-file content a bare
//!   `...` line is one too, except in Python.
//! - Truncation is a `Truncated` issue for the cut file (the edit is still listed): a whole-file
//!   block in a fence the reply ends inside; an unclosed SEARCH/REPLACE block, a Codex envelope
//!   without `*** End Patch`, or JSON that never closes, each running to the end of the reply; a
//!   diff hunk running to the end of the reply inside an unclosed fence or markers pair, shorter
//!   than its header on either side (or with no counts); a bare diff hunk running to the end of
//!   the reply, ending on a changed line, shorter than its header on both sides (on one side
//!   suffices when the reply stops mid-line). A complete edit followed by prose inside an
//!   unclosed wrapper is not truncated (a forgotten close).
//! - Several Modify edits of one path are merged into the first, in order (identical hunks once).
//! - No edit at all is a `NoEdit` issue without a path.

mod body;
mod codex;
mod cut;
mod cx;
mod diff;
mod fence;
mod json;
mod markers;
mod pair;
// Lowering a text pair again once its indentation is read (locate::variants::pasted).
pub(crate) use pair::lower as lower_pair;
mod paths;
mod readers;
mod sanitize;
mod search_replace;
mod sniff;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
mod tool_json;
mod tool_xml;
mod whole_file;
mod wrapper;
mod written;

pub use written::ReplySyntax;

use crate::edit::Extraction;
use cx::{Cx, Region, RegionState};
pub use sniff::looks_like_edit;

/// Extracts every edit in `reply`. See the module docs for the grammar.
pub fn extract(reply: &str) -> Extraction {
    let mut cx = Cx::new(reply);
    let top = Region {
        start: 0,
        end: cx.src.len(),
        state: RegionState::Top,
        hint: None,
        diff_lang: false,
        depth: 0,
    };
    wrapper::scan_region(&mut cx, &top);
    cut::stops_mid_syntax(&mut cx);
    cx.finish()
}

/// Extracts the edits of one JSON value given on its own, such as the arguments of an MCP tool
/// call: the agents' tool-call JSON and old/new objects (see `parse/tool_json.rs`'s grammar). A value
/// that holds no edit gives a `NoEdit` issue.
pub fn extract_value(value: &serde_json::Value) -> Extraction {
    let mut cx = Cx::new("");
    tool_json::lower_value(&mut cx, value, 0);
    cx.finish()
}

/// True when `line`, written into the file at `path`, would stand in for code instead of being
/// code: a lazy placeholder (`// ... existing code ...`, `# rest unchanged`), a comment of only
/// dots (`// ...`), a gap line the whole-file applier fills from the file (see
/// [`replace_whole`](crate::replace_whole)), or a bare `...` outside Python. For callers that check
/// content with nothing to fill it from (a new file).
pub fn is_placeholder(line: &str, path: &str) -> bool {
    let dots = crate::placeholder::dots_are_content(path);
    crate::placeholder::is_placeholder_content(line, dots) || crate::placeholder::is_gap(line, dots)
}

/// Whether a bare `...` line is code in the file at `path` (Python's Ellipsis), so neither a
/// placeholder nor a gap there.
pub(crate) fn dots_are_code(path: &str) -> bool {
    crate::placeholder::dots_are_content(path)
}
