//! Edits written as JSON values: old/new objects and the agents' own tool calls (Claude Code
//! `Edit` / `MultiEdit` / `Write`, Gemini CLI `replace` / `write_file`, OpenCode `edit` /
//! `write`), whether they come as text in a reply ([`super::json`] finds and delimits them) or
//! as one JSON value such as an MCP tool argument ([`super::extract_value`]).
//!
//! # Grammar
//!
//! ```text
//! value   := object | "[" value,* "]"
//! object  := edit | write | insert | list | call
//! edit    := { path?, old, new, count? }             (path may come from an enclosing list)
//! insert  := { "command": "insert", path, "insert_line": integer >= 0,
//!              new | "insert_text" }                 (Anthropic's text editor: the text goes
//!                                                     after that 1-based line, 0 for the top)
//! write   := { path, content }                       (no old / new key)
//! list    := { path?, ("edits" | "changes"): value } (Claude Code MultiEdit; items inherit path)
//! call    := { ..., wrap: object | array | string }  (a tool-call envelope; a string is parsed
//!                                                     as JSON, as OpenAI `arguments` are)
//! path    := "path" | "file_path" | "filePath" | "file" | "filename" | "target_file"
//!          | "filepath"                                  (Continue)
//! old     := "old_string" | "oldString" | "old_str" | "old" | "search"
//! new     := "new_string" | "newString" | "new_str" | "new" | "replace"
//! content := "content" | "file_text"       (with "command": "create", Anthropic's text
//!                                            editor: a new file, refused where one exists)
//!          | "code_edit"                    (Cursor's `edit_file`, with "target_file" and
//!                                            "instructions": a lazy edit snippet, see
//!                                            `crate::snippet`)
//! count   := ("replace_all" | "replaceAll" | "allow_multiple"): bool
//!          | ("expected_replacements" | "expectedReplacements"): integer >= 1
//! wrap    := "input" | "arguments" | "args" | "parameters" | "params" | "function" |
//!            "tool_input" | "tool_calls" | "calls" | "functionCall" | "function_call"
//!            (Gemini's `{"functionCall": {"name", "args"}}`)
//! ```
//!
//! - An edit is lowered like SEARCH/REPLACE ([`super::pair`]); an empty old text creates the
//!   file. Old or new alone next to a path is `Malformed` (a missing side is never read as "").
//! - `count` says how many occurrences the edit replaces: `replace_all: true` every one (at
//!   least one), `expected_replacements: N` exactly N. It becomes
//!   [`crate::edit::Hunk::occurrences`], held exactly by the applier (else the hunk is refused).
//!   `replace_all: false` and `expected_replacements: 1` are the default: one occurrence. Any
//!   other count value is `Malformed`.
//! - An insert places its lines after the line it names, by number alone
//!   ([`crate::edit::Anchor::AfterLine`]). It must be the only edit of its file in the reply
//!   (held when the reply's edits are merged, `Cx::finish`).
//! - A write replaces the whole file (created when missing) and is checked like a whole-file
//!   block: placeholders are `Lazy`, edit syntax is `Malformed`. It is never skipped.
//! - An object with none of these shapes is not an edit and is left alone, so a config file in
//!   a fence stays prose.

use super::body::truncate;
use super::cx::{Cx, RegionState};
use super::pair::push_pair;
use super::whole_file;
use crate::edit::{
    Anchor, FileChange, FileEdit, Format, Hunk, HunkLine, IssueKind, LineKind, Occurrences,
};
use serde_json::{Map, Value};

pub(crate) const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "file",
    "filename",
    "target_file",
    "filepath",
];
pub(crate) const OLD_KEYS: &[&str] = &["old_string", "oldString", "old_str", "old", "search"];
pub(crate) const NEW_KEYS: &[&str] = &["new_string", "newString", "new_str", "new", "replace"];
pub(crate) const CONTENT_KEYS: &[&str] = &["content", "file_text", "code_edit"];
const LIST_KEYS: &[&str] = &["edits", "changes"];
const WRAP_KEYS: &[&str] = &[
    "input",
    "arguments",
    "args",
    "parameters",
    "params",
    "function",
    "tool_input",
    "tool_calls",
    "calls",
    "functionCall",
    "function_call",
];
/// Tool-call envelopes nest a few levels at most; deeper values are not read.
const MAX_DEPTH: usize = 8;

/// One edit found in the JSON value. A side is `None` when the object does not have it: an edit
/// must carry both strings (an empty one is meaningful: create, or delete the old text), so a
/// missing side is a broken edit, never read as empty.
struct RawEdit {
    path: Option<String>,
    old: Option<String>,
    new: Option<String>,
    content: Option<String>,
    /// Anthropic's text editor `"command": "create"`: a new file, never a write over one.
    create: bool,
    /// Cursor's `edit_file` (`code_edit`): the content is a lazy edit snippet.
    snippet: bool,
    count: Result<Option<Occurrences>, String>,
    /// Anthropic's text editor `"command": "insert"`: the line the new text goes after, or why
    /// `insert_line` is no line number.
    insert_after: Option<Result<usize, String>>,
}

fn get_str(obj: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str).map(str::to_string))
}

/// The occurrence count an object asks for; `Err` names a count that makes no sense.
fn count_of(obj: &Map<String, Value>) -> Result<Option<Occurrences>, String> {
    if let Some(v) = ["replace_all", "replaceAll", "allow_multiple"]
        .iter()
        .find_map(|k| obj.get(*k))
    {
        return match v.as_bool() {
            Some(true) => Ok(Some(Occurrences::All)),
            Some(false) => Ok(None),
            None => Err(format!("replace_all is {v}, not true or false")),
        };
    }
    let Some(v) = ["expected_replacements", "expectedReplacements"]
        .iter()
        .find_map(|k| obj.get(*k))
    else {
        return Ok(None);
    };
    match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
        Some(1) => Ok(None),
        Some(n) if n > 1 => Ok(Some(Occurrences::Exactly(n))),
        _ => Err(format!(
            "expected_replacements is {v}, not a count of 1 or more"
        )),
    }
}

fn collect(v: &Value, inherited: Option<&str>, out: &mut Vec<RawEdit>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Array(items) => {
            for item in items {
                collect(item, inherited, out, depth + 1);
            }
        }
        Value::Object(obj) => {
            let path = get_str(obj, PATH_KEYS).or_else(|| inherited.map(str::to_string));
            if let Some(list) = LIST_KEYS.iter().find_map(|k| obj.get(*k)) {
                collect(list, path.as_deref(), out, depth + 1);
                return;
            }
            if path.is_some() && obj.get("command").and_then(Value::as_str) == Some("insert") {
                out.push(RawEdit {
                    path,
                    old: None,
                    new: get_str(obj, NEW_KEYS).or_else(|| get_str(obj, &["insert_text"])),
                    content: None,
                    create: false,
                    snippet: false,
                    count: Ok(None),
                    insert_after: Some(insert_line(obj)),
                });
                return;
            }
            let old = get_str(obj, OLD_KEYS);
            let new = get_str(obj, NEW_KEYS);
            let content = get_str(obj, CONTENT_KEYS);
            // One of old/new is enough next to a path; without a path both must be there, so
            // that a config file with a `"replace"` key is not taken for an edit.
            let edit_like = (old.is_some() && new.is_some())
                || (path.is_some() && (old.is_some() || new.is_some()));
            let write_like = path.is_some() && content.is_some() && !edit_like;
            if edit_like || write_like {
                let count = count_of(obj);
                out.push(RawEdit {
                    path,
                    old,
                    new,
                    content,
                    create: obj.get("command").and_then(Value::as_str) == Some("create"),
                    snippet: obj.contains_key("code_edit"),
                    count,
                    insert_after: None,
                });
                return;
            }
            for w in WRAP_KEYS.iter().filter_map(|k| obj.get(*k)) {
                match w {
                    Value::String(s) => {
                        if let Ok(inner) = serde_json::from_str::<Value>(s) {
                            collect(&inner, path.as_deref(), out, depth + 1);
                        }
                    }
                    _ => collect(w, path.as_deref(), out, depth + 1),
                }
            }
        }
        _ => {}
    }
}

/// The line an `insert` goes after: `insert_line`, a whole number (0 for the top).
fn insert_line(obj: &Map<String, Value>) -> Result<usize, String> {
    match obj.get("insert_line") {
        None => Err("an `insert` without insert_line: say after which line the text goes".into()),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("insert_line is {v}, not a line number (0 or more)")),
    }
}

/// An `insert`: its lines, as one pure insertion pinned after line `at`.
fn insert(cx: &mut Cx, path: &str, at: Result<usize, String>, new: Option<String>) {
    let at = match at {
        Ok(at) => at,
        Err(why) => return cx.issue(IssueKind::Malformed, Some(path), why),
    };
    let Some(new) = new.filter(|n| !n.is_empty()) else {
        return cx.issue(
            IssueKind::Malformed,
            Some(path),
            "an `insert` without new_str: there is nothing to insert",
        );
    };
    // A final newline ends the last inserted line; it adds no empty line.
    let body = new.strip_suffix('\n').unwrap_or(&new);
    let hunk = Hunk {
        lines: body
            .split('\n')
            .map(|l| HunkLine::new(LineKind::Add, l.strip_suffix('\r').unwrap_or(l)))
            .collect(),
        anchor: Anchor::AfterLine(at),
        ..Hunk::default()
    };
    if let Some(l) = super::sanitize::lazy_added_line(std::slice::from_ref(&hunk)) {
        return cx.issue(
            IssueKind::Lazy,
            Some(path),
            format!("inserted line {:?} stands in for code", truncate(l, 60)),
        );
    }
    cx.edits.push(FileEdit {
        path: path.to_string(),
        change: FileChange::Modify { hunks: vec![hunk] },
        format: Format::ToolJson,
        mode: None,
    });
}

/// Splits an old/new pair into lines (`\n` separated, `\r` dropped). A final newline on both
/// sides ends their last lines; on one side only it is an empty last line of that side (a blank
/// line the other side does not have, or has with trailing spaces). An empty new text has no
/// lines to end: old lines ending in a newline replaced by nothing are deleted whole, and the
/// line after them stays.
fn split_pair<'a>(old: &'a str, new: &'a str) -> (Vec<&'a str>, Vec<&'a str>) {
    let both = ends_lines(old, new);
    let split = |s: &'a str| -> Vec<&'a str> {
        if s.is_empty() {
            return Vec::new();
        }
        let body = if both {
            s.strip_suffix('\n').unwrap_or(s)
        } else {
            s
        };
        body.split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect()
    };
    (split(old), split(new))
}

/// Whether the pair replaces whole lines: both sides end with a newline, or the old text does
/// and the new text is empty (a deletion).
fn ends_lines(old: &str, new: &str) -> bool {
    old.ends_with('\n') && (new.ends_with('\n') || new.is_empty())
}

/// A new file from an edit with empty old text; the new text is the content as written, line
/// endings and final newline included: a JSON string says them explicitly.
fn create(cx: &mut Cx, path: &str, content: &str) {
    let content = content.to_owned();
    if let Some(l) = content
        .lines()
        .find(|l| crate::placeholder::is_lazy(l) || crate::placeholder::is_comment_dots(l))
    {
        cx.issue(
            IssueKind::Lazy,
            Some(path),
            format!("new file line {:?} stands in for code", truncate(l, 60)),
        );
    }
    let final_newline = content.ends_with('\n');
    cx.edits.push(FileEdit {
        path: path.to_string(),
        change: FileChange::Create {
            content,
            final_newline,
        },
        format: Format::OldNewJson,
        mode: None,
    });
}

/// A JSON string says its content exactly: the whole-file edit pushed at `at` keeps the
/// string's own line endings and final-newline state (unless it was changed while read, say
/// line-number prefixes stripped). A file that exists keeps its own line endings and final
/// newline when replaced; a new file is written as the string says.
fn exact_content(cx: &mut Cx, at: usize, content: &str) {
    let Some(FileChange::Replace {
        content: taken,
        final_newline,
    }) = cx.edits.get_mut(at).map(|e| &mut e.change)
    else {
        return;
    };
    let lf = content.replace("\r\n", "\n");
    if *taken == lf || taken.strip_suffix('\n') == Some(lf.as_str()) {
        *taken = content.to_owned();
        *final_newline = content.ends_with('\n');
    }
}

/// Lowers every edit in `value` into `cx`; false when the value holds no edit at all. `line` is
/// the reply line the value starts on (0 for a value given alone), for messages.
pub(crate) fn lower_value(cx: &mut Cx, value: &Value, line: usize) -> bool {
    let mut raw = Vec::new();
    collect(value, None, &mut raw, 0);
    if raw.is_empty() {
        return false;
    }
    for e in raw {
        lower_one(cx, e, line);
    }
    true
}

fn lower_one(cx: &mut Cx, e: RawEdit, line: usize) {
    let Some(path) = e.path else {
        cx.issue(IssueKind::Malformed, None, "JSON edit without a path");
        return;
    };
    if let Some(at) = e.insert_after {
        return insert(cx, &path, at, e.new);
    }
    let count = match e.count {
        Ok(c) => c,
        Err(why) => {
            cx.issue(IssueKind::Malformed, Some(&path), why);
            return;
        }
    };
    let (e_old, e_new) = match (e.old, e.new, e.content) {
        (Some(o), Some(n), _) => (o, n),
        (None, None, Some(content)) if e.create => {
            create(cx, &path, &content);
            return;
        }
        (None, None, Some(content)) => {
            let before = cx.edits.len();
            let lines: Vec<&str> = content
                .lines()
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .collect();
            whole_file::take_lines(
                cx,
                path,
                lines,
                RegionState::Closed,
                "",
                if e.snippet {
                    Format::Snippet
                } else {
                    Format::ToolJson
                },
                line,
            );
            exact_content(cx, before, &content);
            return;
        }
        (o, _, _) => {
            let missing = if o.is_some() {
                "new_string"
            } else {
                "old_string"
            };
            cx.issue(
                IssueKind::Malformed,
                Some(&path),
                format!(
                    "JSON edit without {missing}: an edit needs both old_string and new_string (\"\" to delete or create)"
                ),
            );
            return;
        }
    };
    if e_old.is_empty() {
        create(cx, &path, &e_new);
        return;
    }
    let line_end = ends_lines(&e_old, &e_new);
    let (old, new) = split_pair(&e_old, &e_new);
    let format = if count.is_some() {
        Format::ToolJson
    } else {
        Format::OldNewJson
    };
    let before = cx.edits.len();
    push_pair(cx, &path, old, new, None, format, line_end);
    if let Some(FileChange::Modify { hunks }) = cx.edits.get_mut(before).map(|e| &mut e.change) {
        for h in hunks {
            h.occurrences = count;
        }
    }
}

#[cfg(test)]
#[path = "tool_json_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
