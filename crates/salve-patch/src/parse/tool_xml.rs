//! Cline and Roo tool calls written as XML in a reply: `<apply_diff>`, `<replace_in_file>` and
//! `<write_to_file>`; and Cursor's `edit_file`, as `<edit_file>` with `<target_file>`,
//! `<instructions>` and `<code_edit>`, or as `<invoke name="edit_file">` with one
//! `<parameter name="...">` per argument (`code_edit` is a lazy edit snippet, see
//! `crate::snippet`).
//!
//! # Grammar
//!
//! ```text
//! call      := open param* close                     (close missing at the end of the reply:
//!                                                     truncated; elsewhere: malformed)
//! open      := "<apply_diff>" | "<replace_in_file>" | "<write_to_file>"
//! close     := "</apply_diff>" | "</replace_in_file>" | "</write_to_file>"
//! param     := "<path>" text "</path>"
//!            | "<diff>" sr-text "</diff>"               (apply_diff, replace_in_file)
//!            | "<content>" text "</content>"            (write_to_file)
//!            | "<args>" file* "</args>"                 (Roo's multi-file apply_diff)
//!            | "<line_count>" N "</line_count>"         (write_to_file: the content's own line
//!                                                     count; a content shorter than it was
//!                                                     cut: truncated)
//!            | other                                    (ignored)
//! file      := "<file>" "<path>" text "</path>" diff* "</file>"
//! diff      := "<diff>" ( sr-text | "<content>" sr-text "</content>" "<start_line>" N
//!              "</start_line>"? ) "</diff>"
//! sr-text   := ( blank | sr-block )*                   (see the SEARCH/REPLACE grammar; Roo's
//!                                                     `:start_line:` / `-------` and Cline's
//!                                                     `------- SEARCH` / `+++++++ REPLACE`)
//! ```
//!
//! Tags are matched anywhere on a line, so `<apply_diff><path>a.py</path>` on one line reads the
//! same as one tag per line. The text of an element runs from just after its opening tag to just
//! before its closing tag; a newline right after the opening tag and right before the closing one
//! belongs to the markup, not the text. A `<![CDATA[ ... ]]>` wrapper is removed. The text is not
//! XML-unescaped: the agents write code raw.
//!
//! A `<diff>` is read block by block (fences inside the replaced text are text, not wrappers);
//! any other non-blank line in it is `Malformed` for the path, so that no part of the diff is
//! dropped. `<write_to_file>` is a whole-file write, checked like a whole-file block (lazy
//! placeholders, edit syntax). A call without `<path>`, or without its `<diff>` / `<content>`,
//! is `Malformed` for the whole reply.

use super::cx::{Cx, Region, RegionState};
use super::fence::{is_fence_close, Fence};
use super::{search_replace, whole_file};
use crate::edit::{FileChange, Format, IssueKind};

/// The tool calls read here.
const TOOLS: &[&str] = &[
    "apply_diff",
    "replace_in_file",
    "write_to_file",
    "edit_file",
];

/// The tool whose call opens on `line`, if any.
pub(crate) fn tool_at(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    if t.starts_with(INVOKE_EDIT_FILE) {
        return Some(INVOKE);
    }
    TOOLS
        .iter()
        .find(|tool| {
            t.strip_prefix('<')
                .and_then(|r| r.strip_prefix(**tool))
                .is_some_and(|r| r.starts_with('>'))
        })
        .copied()
}

/// Cursor's `edit_file` in the generic tool-call form: `<invoke name="edit_file">` with one
/// `<parameter name="...">` per argument, closed by `</invoke>`.
const INVOKE_EDIT_FILE: &str = "<invoke name=\"edit_file\">";
const INVOKE: &str = "invoke";

/// An element found between two lines of the reply: its text, and the line it starts on.
struct Elem {
    text: String,
    /// The line holding the opening tag.
    open: usize,
    /// The line holding the closing tag (or the search end, when it is missing).
    close: usize,
    closed: bool,
}

impl Elem {
    /// Closed by its end tag, or open: the reply ended inside it.
    fn state(&self) -> RegionState {
        if self.closed {
            RegionState::Closed
        } else {
            RegionState::Open
        }
    }
}

/// Finds `<tag>` at or after line `from` (before `to`) and its `</tag>`, and returns the text
/// between them.
fn element(cx: &Cx, from: usize, to: usize, tag: &str) -> Option<Elem> {
    element_between(cx, from, to, &format!("<{tag}>"), &format!("</{tag}>"))
}

/// An argument of `edit_file`: `<tag>` in the `<edit_file>` form, `<parameter name="tag">`
/// in the `<invoke>` form.
fn argument(cx: &Cx, from: usize, to: usize, tool: &str, tag: &str) -> Option<Elem> {
    if tool == INVOKE {
        let open = format!("<parameter name=\"{tag}\">");
        return element_between(cx, from, to, &open, "</parameter>");
    }
    element(cx, from, to, tag)
}

/// Finds `open_tag` at or after line `from` (before `to`) and the `close_tag` after it, and
/// returns the text between them.
fn element_between(
    cx: &Cx,
    from: usize,
    to: usize,
    open_tag: &str,
    close_tag: &str,
) -> Option<Elem> {
    let open = (from..to).find(|&k| cx.src.line(k).contains(open_tag))?;
    let first = cx.src.line(open);
    let at = first.find(open_tag)? + open_tag.len();
    let mut text = String::new();
    let mut k = open;
    let mut rest = first.get(at..).unwrap_or("");
    loop {
        if let Some(end) = rest.find(close_tag) {
            text.push_str(rest.get(..end).unwrap_or(""));
            return Some(Elem {
                text: tidy(text, k > open),
                open,
                close: k,
                closed: true,
            });
        }
        text.push_str(rest);
        k += 1;
        if k >= to {
            return Some(Elem {
                text: tidy(text, true),
                open,
                close: to,
                closed: false,
            });
        }
        text.push('\n');
        rest = cx.src.line(k);
    }
}

/// Removes the markup newlines around a multi-line element's text and a CDATA wrapper.
fn tidy(mut text: String, multi_line: bool) -> String {
    if multi_line {
        if text.starts_with('\n') {
            text.remove(0);
        }
        // The newline before the closing tag ends the last line of text; keep it as its end.
        if !text.ends_with('\n') && !text.is_empty() {
            let last = text.rsplit('\n').next().unwrap_or("");
            if last.trim().is_empty() {
                let cut = text.len() - last.len();
                text.truncate(cut);
            } else {
                text.push('\n');
            }
        }
    }
    let t = text.trim();
    if let Some(inner) = t
        .strip_prefix("<![CDATA[")
        .and_then(|x| x.strip_suffix("]]>"))
    {
        let inner = inner.strip_prefix('\n').unwrap_or(inner);
        let mut s = inner.to_string();
        if !s.ends_with('\n') && !s.is_empty() {
            s.push('\n');
        }
        return s;
    }
    text
}

/// Reads the tool call opened at line `i`; returns the line after it.
pub(crate) fn parse(cx: &mut Cx, r: &Region, i: usize) -> usize {
    let Some(tool) = tool_at(cx.src.line(i)) else {
        return i + 1;
    };
    let close_tag = format!("</{tool}>");
    let close = (i..r.end).find(|&k| cx.src.line(k).contains(&close_tag));
    let end = close.map_or(r.end, |c| c + 1);
    let path = if matches!(tool, "edit_file" | INVOKE) {
        argument(cx, i, end, tool, "target_file")
    } else {
        element(cx, i, end, "path")
    }
    .map(|e| e.text.trim().to_string());
    if close.is_none() {
        if r.ends_reply_unclosed(&cx.src) {
            cx.issue(
                IssueKind::Truncated,
                path.as_deref(),
                format!("the reply ends inside the <{tool}> call of line {}", i + 1),
            );
        } else {
            cx.issue(
                IssueKind::Malformed,
                path.as_deref(),
                format!("line {}: <{tool}> without </{tool}>", i + 1),
            );
        }
        return end;
    }
    if tool == "apply_diff" && element(cx, i, end, "args").is_some() {
        read_files(cx, i, end);
        return end;
    }
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        cx.issue(
            IssueKind::Malformed,
            None,
            format!("line {}: <{tool}> without a <path>", i + 1),
        );
        return end;
    };
    if matches!(tool, "edit_file" | INVOKE) {
        edit_file(cx, i, end, tool, &path);
    } else if tool == "write_to_file" {
        write(cx, i, end, &path);
    } else {
        read_diffs(cx, i, end, &path);
    }
    end
}

/// Roo's multi-file form: every `<file>` in `<args>` with its path and diffs.
fn read_files(cx: &mut Cx, i: usize, end: usize) {
    let mut from = i;
    while let Some(file) = element(cx, from, end, "file") {
        let stop = file.close + 1;
        match element(cx, file.open, stop, "path").map(|e| e.text.trim().to_string()) {
            Some(p) if !p.is_empty() => read_diffs(cx, file.open, stop, &p),
            _ => cx.issue(
                IssueKind::Malformed,
                None,
                format!("line {}: <file> without a <path>", file.open + 1),
            ),
        }
        from = stop;
    }
}

/// Every `<diff>` between lines `from` and `to`, read as SEARCH/REPLACE blocks for `path`.
fn read_diffs(cx: &mut Cx, from: usize, to: usize, path: &str) {
    let mut at = from;
    let mut any = false;
    while let Some(d) = element(cx, at, to, "diff") {
        any = true;
        let start_line = element(cx, d.open, d.close + 1, "start_line")
            .and_then(|e| e.text.trim().parse::<usize>().ok());
        let text = match element(cx, d.open, d.close + 1, "content") {
            Some(c) => c.text,
            None => d.text,
        };
        sr_text(cx, &text, d.open + 1, path, start_line);
        at = d.close + 1;
        if !d.closed {
            break;
        }
    }
    if !any {
        cx.issue(
            IssueKind::Malformed,
            Some(path),
            format!("line {}: tool call without a <diff>", from + 1),
        );
    }
}

/// Reads SEARCH/REPLACE blocks from the text of a `<diff>` whose first line is reply line
/// `base` (0-based). The blocks are read in a small extraction of their own, whose findings
/// join `cx` with their line numbers moved to the reply's.
fn sr_text(cx: &mut Cx, text: &str, base: usize, path: &str, start_line: Option<usize>) {
    let mut sub = Cx::new(text);
    let r = Region {
        start: 0,
        end: sub.src.len(),
        state: RegionState::Closed,
        hint: Some(path.to_string()),
        diff_lang: false,
        depth: 0,
    };
    let found = search_replace::parse_all(&mut sub, &r, path);
    // Roo's `<start_line>` element is the hint of the diff's first block.
    if let (Some(n), Some(FileChange::Modify { hunks })) =
        (start_line, sub.edits.first_mut().map(|e| &mut e.change))
    {
        if let Some(h) = hunks.first_mut().filter(|h| h.old_start.is_none()) {
            h.old_start = Some(n);
        }
    }
    if found == 0 {
        sub.issue(
            IssueKind::Malformed,
            Some(path),
            "tool call whose <diff> holds no SEARCH/REPLACE block",
        );
    }
    for e in &mut sub.edits {
        e.format = Format::ToolXml;
    }
    cx.edits.append(&mut sub.edits);
    for mut issue in sub.issues {
        issue.message = shift_line(&issue.message, base);
        cx.issues.push(issue);
    }
    for n in sub.notes {
        cx.notes.push(shift_line(&n, base));
    }
}

/// Reads the tool calls in the fence whose first call opens at line `k`, then the fence's
/// close; returns the line after it. A call's text may hold fences of its own, so calls are
/// read before the close is looked for.
pub(crate) fn parse_fenced(cx: &mut Cx, r: &Region, k: usize, f: &Fence) -> usize {
    let mut i = k;
    while i < r.end {
        let l = cx.src.line(i);
        if is_fence_close(l, f) {
            return i + 1;
        }
        if tool_at(l).is_some() {
            i = parse(cx, r, i).max(i + 1);
        } else {
            i += 1;
        }
    }
    r.end
}

/// Moves a leading `line N:` of a message found in a sub-extraction by `base` lines.
pub(crate) fn shift_line(msg: &str, base: usize) -> String {
    let Some(rest) = msg.strip_prefix("line ") else {
        return msg.to_string();
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    match digits.parse::<usize>() {
        Ok(n) => format!("line {}{}", n + base, &rest[digits.len()..]),
        Err(_) => msg.to_string(),
    }
}

/// `<write_to_file>`: the whole new content of `path`.
fn write(cx: &mut Cx, i: usize, end: usize, path: &str) {
    let Some(c) = element(cx, i, end, "content") else {
        cx.issue(
            IssueKind::Malformed,
            Some(path),
            format!("line {}: <write_to_file> without <content>", i + 1),
        );
        return;
    };
    let state = c.state();
    let lines: Vec<&str> = c.text.lines().collect();
    // Cline states the line count of what it writes: a content shorter than its own count was
    // cut on the way (a longer one only miscounted, and is written).
    // Looked for outside the content, which may mention the tag itself.
    let counted = element(cx, c.close + 1, end, "line_count")
        .or_else(|| element(cx, i, c.open, "line_count"))
        .and_then(|e| e.text.trim().parse().ok());
    if let Some(n) = counted.filter(|&n: &usize| lines.len() < n) {
        cx.issue(
            IssueKind::Truncated,
            Some(path),
            format!(
                "line {}: <write_to_file> says its content has {n} lines, but it holds {}: the content was cut",
                i + 1,
                lines.len()
            ),
        );
        return;
    }
    whole_file::take_lines(
        cx,
        path.to_string(),
        lines,
        state,
        "",
        Format::ToolXml,
        c.open + 1,
    );
}

/// Cursor's `edit_file`: `code_edit` is a lazy edit snippet of `path` (`instructions` is a
/// sentence for the model that applies it, and is not read).
fn edit_file(cx: &mut Cx, i: usize, end: usize, tool: &str, path: &str) {
    let Some(c) = argument(cx, i, end, tool, "code_edit") else {
        cx.issue(
            IssueKind::Malformed,
            Some(path),
            format!("line {}: edit_file without code_edit", i + 1),
        );
        return;
    };
    let state = c.state();
    let lines: Vec<&str> = c.text.lines().collect();
    whole_file::take_lines(
        cx,
        path.to_string(),
        lines,
        state,
        "",
        Format::Snippet,
        c.open + 1,
    );
}

#[cfg(test)]
#[path = "tool_xml_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
