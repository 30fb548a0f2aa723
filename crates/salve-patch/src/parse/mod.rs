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
//! edit      := git-diff | unified | codex | search-replace | json | whole-file
//! ```
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
//! block     := "<"{5..9} " SEARCH" NL (":start_line:" N NL)? ("-------" NL)?
//!              search-lines "="{5..9} NL replace-lines ">"{5..9} " REPLACE"
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
//!   context line between two added lines is listed in `maybe_added`.
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
mod diff;
mod json;
mod paths;
mod sanitize;
mod search_replace;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
mod whole_file;
mod wrapper;

use crate::edit::{Extraction, FileChange, FileEdit, IssueKind, ParseIssue};
use std::collections::{HashMap, HashSet};

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
    scan_region(&mut cx, &top);
    cx.finish()
}

/// True when `line`, written into the file at `path`, would stand in for code instead of being
/// code: a lazy placeholder (`// ... existing code ...`, `# rest unchanged`), a comment of only
/// dots (`// ...`), a gap line the whole-file applier fills from the file
/// ([`crate::locate::whole::is_gap`]), or a bare `...` outside Python. For callers that check
/// content with nothing to fill it from (a new file).
pub fn is_placeholder(line: &str, path: &str) -> bool {
    let dots = sanitize::dots_are_content(path);
    sanitize::is_placeholder_content(line, dots) || crate::locate::whole::is_gap(line, dots)
}

/// Whether a bare `...` line is code in the file at `path` (Python's Ellipsis), so neither a
/// placeholder nor a gap there.
pub fn dots_are_code(path: &str) -> bool {
    sanitize::dots_are_content(path)
}

/// The reply split into lines, with byte offsets for the JSON reader.
pub(crate) struct Source<'a> {
    text: &'a str,
    lines: Vec<&'a str>,
    offsets: Vec<usize>,
    ends_with_newline: bool,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
        let mut lines = Vec::new();
        let mut offsets = Vec::new();
        let mut pos = 0;
        for piece in text.split('\n') {
            offsets.push(pos);
            lines.push(piece.strip_suffix('\r').unwrap_or(piece));
            pos += piece.len() + 1;
        }
        // `split` yields a last empty piece after a final newline (or for an empty text).
        if lines.last() == Some(&"") {
            lines.pop();
            offsets.pop();
        }
        Source {
            text,
            lines,
            offsets,
            ends_with_newline: text.ends_with('\n'),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Line `i`, or `""` past the end.
    pub(crate) fn line(&self, i: usize) -> &'a str {
        self.lines.get(i).copied().unwrap_or("")
    }

    /// Byte offset where line `i` starts (the text length past the end).
    pub(crate) fn offset(&self, i: usize) -> usize {
        self.offsets.get(i).copied().unwrap_or(self.text.len())
    }

    /// The line holding byte `off`.
    pub(crate) fn line_of(&self, off: usize) -> usize {
        self.offsets
            .partition_point(|&o| o <= off)
            .saturating_sub(1)
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// The first non-blank line in `from..to`, if any.
    pub(crate) fn next_nonblank(&self, from: usize, to: usize) -> Option<usize> {
        (from..to.min(self.len())).find(|&k| !self.line(k).trim().is_empty())
    }
}

/// How a region of lines ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegionState {
    /// The whole reply, or content that ran to its end outside any wrapper.
    Top,
    /// Closed by its fence or end marker (or by an enclosing closed wrapper).
    Closed,
    /// A fence or marker pair that the reply ended inside.
    Open,
}

/// A run of lines read as a (nested) reply.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    pub start: usize,
    pub end: usize,
    pub state: RegionState,
    /// A path attached to the enclosing fence (path line before it or info string).
    pub hint: Option<String>,
    /// The enclosing fence is ```` ```diff ```` or ```` ```patch ````.
    pub diff_lang: bool,
    pub depth: usize,
}

impl Region {
    /// The state of a nested region that runs to `self.end` without its own close.
    pub(crate) fn unclosed_child_state(&self, src: &Source) -> RegionState {
        if self.state != RegionState::Closed && self.end >= src.len() {
            RegionState::Open
        } else {
            RegionState::Closed
        }
    }

    /// True when the reply itself ends at the end of this region with no close: the place where
    /// a cut reply stops.
    pub(crate) fn ends_reply_unclosed(&self, src: &Source) -> bool {
        self.state != RegionState::Closed && self.end >= src.len()
    }
}

/// Nesting deeper than this is read as prose, so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 8;

/// The extraction under way.
pub(crate) struct Cx<'a> {
    pub src: Source<'a>,
    pub edits: Vec<FileEdit>,
    pub issues: Vec<ParseIssue>,
    pub notes: Vec<String>,
    /// The path of the last SEARCH/REPLACE block, inherited by a following block without one.
    pub last_sr_path: Option<String>,
    /// Bytes the JSON reader may still scan; keeps repeated failed attempts linear overall.
    pub json_budget: usize,
}

impl<'a> Cx<'a> {
    fn new(reply: &'a str) -> Self {
        Cx {
            src: Source::new(reply),
            edits: Vec::new(),
            issues: Vec::new(),
            notes: Vec::new(),
            last_sr_path: None,
            json_budget: reply.len().saturating_mul(4).saturating_add(4096),
        }
    }

    pub(crate) fn issue(
        &mut self,
        kind: IssueKind,
        path: Option<&str>,
        message: impl Into<String>,
    ) {
        self.issues.push(ParseIssue {
            kind,
            path: path.map(str::to_string),
            message: message.into(),
        });
    }

    pub(crate) fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Count of edits and issues, to tell whether reading a region found anything.
    pub(crate) fn found(&self) -> usize {
        self.edits.len() + self.issues.len()
    }

    fn finish(mut self) -> Extraction {
        let edits = merge_modifies(std::mem::take(&mut self.edits), &mut self.notes);
        let mut seen = HashSet::new();
        let mut issues: Vec<ParseIssue> = self
            .issues
            .into_iter()
            .filter(|i| seen.insert((i.kind, i.path.clone())))
            .collect();
        if edits.is_empty() && issues.is_empty() {
            issues.push(ParseIssue {
                kind: IssueKind::NoEdit,
                path: None,
                message: "no edit found in the reply".to_string(),
            });
        }
        let mut seen = HashSet::new();
        let notes: Vec<String> = self
            .notes
            .into_iter()
            .filter(|n| seen.insert(n.clone()))
            .collect();
        Extraction {
            edits,
            issues,
            notes,
        }
    }
}

/// Folds later Modify edits of a path into the first one, so every hunk of a file is placed
/// against the same original text. A hunk repeated exactly (a reply that shows its diff twice)
/// is kept once.
fn merge_modifies(edits: Vec<FileEdit>, notes: &mut Vec<String>) -> Vec<FileEdit> {
    let mut out: Vec<FileEdit> = Vec::with_capacity(edits.len());
    let mut first: HashMap<String, usize> = HashMap::new();
    // For a path edited more than once: its merged hunks by hash (positions in the merged edit).
    // Built at the second edit of the path, so a path edited once never pays for it.
    let mut known: HashMap<usize, HashMap<u64, Vec<usize>>> = HashMap::new();
    let hash_of = |h: &crate::edit::Hunk| {
        use std::hash::{Hash, Hasher};
        let mut state = std::collections::hash_map::DefaultHasher::new();
        h.hash(&mut state);
        state.finish()
    };
    for e in edits {
        let FileChange::Modify { hunks } = &e.change else {
            out.push(e);
            continue;
        };
        let Some(&k) = first.get(&e.path) else {
            first.insert(e.path.clone(), out.len());
            out.push(e);
            continue;
        };
        if let FileChange::Modify { hunks: into } = &mut out[k].change {
            let by_hash = known.entry(k).or_insert_with(|| {
                let mut m: HashMap<u64, Vec<usize>> = HashMap::new();
                for (i, h) in into.iter().enumerate() {
                    m.entry(hash_of(h)).or_default().push(i);
                }
                m
            });
            let mut dropped = 0;
            for h in hunks {
                let same_hash = by_hash.entry(hash_of(h)).or_default();
                if same_hash.iter().any(|&i| into[i] == *h) {
                    dropped += 1;
                    continue;
                }
                same_hash.push(into.len());
                into.push(h.clone());
            }
            notes.push(format!(
                "{}: edits of the same file merged into one{}",
                e.path,
                if dropped > 0 {
                    format!(" ({dropped} repeated hunk(s) dropped)")
                } else {
                    String::new()
                }
            ));
        }
    }
    out
}

/// Reads `r` as a (nested) reply: wrappers, edits of every format, and prose.
pub(crate) fn scan_region(cx: &mut Cx, r: &Region) {
    let mut i = r.start;
    let mut pending: Option<paths::PathLine> = None;
    let mut orphan_seen = false;
    while i < r.end {
        let line = cx.src.line(i);
        let t = line.trim();
        if t.is_empty() {
            i += 1;
            continue;
        }
        if r.depth < MAX_DEPTH {
            if t == wrapper::MARK_START {
                i = wrapper::markers(cx, r, i);
                pending = None;
                continue;
            }
            if let Some(f) = wrapper::fence_open(line) {
                i = wrapper::fence(cx, r, i, &f, pending.take());
                continue;
            }
        }
        if let Some(next) = try_edit(cx, r, i, &mut pending, &mut orphan_seen) {
            i = next.max(i + 1);
            pending = None;
            continue;
        }
        pending = paths::path_candidate(line).or_else(|| paths::prose_path(line));
        i += 1;
    }
}

/// Reads the edit starting at line `i`, if one does; returns the line after it.
fn try_edit(
    cx: &mut Cx,
    r: &Region,
    i: usize,
    pending: &mut Option<paths::PathLine>,
    orphan_seen: &mut bool,
) -> Option<usize> {
    let line = cx.src.line(i);
    if line.starts_with("diff --git ") {
        return Some(diff::parse_git(cx, r, i));
    }
    if diff::is_file_header(&cx.src, i, r.end) {
        return Some(diff::parse_unified(cx, r, i));
    }
    if codex::is_start(line) {
        return Some(codex::parse(cx, r, i));
    }
    if search_replace::is_search(line) {
        let path = pending
            .take()
            .map(|p| p.path)
            .or_else(|| r.hint.clone())
            .or_else(|| cx.last_sr_path.clone());
        return Some(search_replace::parse_block(cx, r, i, path));
    }
    let t = line.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        if let Some(next) = json::try_parse(cx, r, i) {
            return Some(next);
        }
    }
    if r.diff_lang && diff::is_headerless_body_start(line) {
        if let Some(path) = r.hint.clone() {
            return Some(diff::parse_orphan(cx, r, i, &path));
        }
    }
    if diff::is_orphan_hunk_start(&cx.src, i, r.end) {
        if let Some(path) = r.hint.clone() {
            return Some(diff::parse_orphan(cx, r, i, &path));
        }
        if !*orphan_seen {
            *orphan_seen = true;
            cx.issue(
                IssueKind::Malformed,
                None,
                format!("line {}: diff hunk without a file header", i + 1),
            );
        }
        return Some(diff::skip_orphan(cx, r, i));
    }
    None
}
