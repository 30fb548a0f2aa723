//! Writing an edit the way each agent does: every format salve reads, one renderer each.
//!
//! Hunk formats take the hunks (after drift); whole-file formats take the intended text. The
//! renderers write what the agents' own tools would, and nothing salve-specific: line numbers
//! and counts only where the format has them, paths as given.

use serde_json::{json, Value};

use crate::hunk::{Hunk, K};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    Git,
    Unified,
    Aider,
    Codex,
    ClaudeEdit,
    ClaudeMultiEdit,
    Gemini,
    OpenCode,
    Roo,
    Cline,
    WholeFence,
    ClaudeWrite,
    GeminiWrite,
    WriteToFile,
}

pub const ALL: &[Format] = &[
    Format::Git,
    Format::Unified,
    Format::Aider,
    Format::Codex,
    Format::ClaudeEdit,
    Format::ClaudeMultiEdit,
    Format::Gemini,
    Format::OpenCode,
    Format::Roo,
    Format::Cline,
    Format::WholeFence,
    Format::ClaudeWrite,
    Format::GeminiWrite,
    Format::WriteToFile,
];

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Git => "git",
            Format::Unified => "unified",
            Format::Aider => "aider-search-replace",
            Format::Codex => "codex",
            Format::ClaudeEdit => "claude-edit",
            Format::ClaudeMultiEdit => "claude-multiedit",
            Format::Gemini => "gemini-replace",
            Format::OpenCode => "opencode-edit",
            Format::Roo => "roo-apply-diff",
            Format::Cline => "cline-replace-in-file",
            Format::WholeFence => "whole-file",
            Format::ClaudeWrite => "claude-write",
            Format::GeminiWrite => "gemini-write-file",
            Format::WriteToFile => "cline-write-to-file",
        }
    }

    /// The whole new file, not hunks.
    pub fn is_whole(self) -> bool {
        matches!(
            self,
            Format::WholeFence | Format::ClaudeWrite | Format::GeminiWrite | Format::WriteToFile
        )
    }

    /// JSON old and new strings, which may quote part of a line.
    pub fn is_json(self) -> bool {
        matches!(
            self,
            Format::ClaudeEdit | Format::ClaudeMultiEdit | Format::Gemini | Format::OpenCode
        )
    }

    /// Old and new text rather than diff lines.
    pub fn is_text(self) -> bool {
        !self.is_whole() && !matches!(self, Format::Git | Format::Unified | Format::Codex)
    }

    /// Carries line numbers (diff headers, Roo's `:start_line:`).
    pub fn has_lines(self) -> bool {
        matches!(self, Format::Git | Format::Unified | Format::Roo)
    }
}

/// How the line numbers of a diff drift.
#[derive(Clone, Copy, Default)]
pub struct Numbers {
    /// Added to every start line.
    pub offset: isize,
    /// Added to the old and new counts of every header.
    pub counts: (isize, isize),
}

fn lang(path: &str) -> &str {
    match path.rsplit('.').next().unwrap_or("") {
        "rs" => "rust",
        "py" => "python",
        "js" => "javascript",
        "ts" => "typescript",
        "md" => "markdown",
        "c" | "h" => "c",
        other => other,
    }
}

/// A fence long enough for `body` (longer than any backtick run at a line start in it).
fn fence(body: &str) -> String {
    let longest = body
        .lines()
        .map(|l| l.trim_start().bytes().take_while(|&b| b == b'`').count())
        .max()
        .unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

fn fenced(info: &str, body: &str) -> String {
    let f = fence(body);
    format!("{f}{info}\n{body}{f}\n")
}

fn text(lines: &[&str], nl: bool) -> String {
    let mut s = lines.join("\n");
    if nl && !lines.is_empty() {
        s.push('\n');
    }
    s
}

fn header(h: &Hunk, n: Numbers) -> String {
    let (oc, nc) = (h.count(K::Add), h.count(K::Del));
    let start = |at: usize, count: usize| {
        let s = if count == 0 { at } else { at + 1 } as isize + n.offset;
        s.max(if count == 0 { 0 } else { 1 })
    };
    let count = |c: usize, d: isize| (c as isize + d).max(0);
    format!(
        "@@ -{},{} +{},{} @@",
        start(h.old_at, oc),
        count(oc, n.counts.0),
        start(h.new_at, nc),
        count(nc, n.counts.1)
    )
}

fn body(h: &Hunk, out: &mut String) {
    for (k, l) in &h.lines {
        let p = match k {
            K::Ctx => ' ',
            K::Del => '-',
            K::Add => '+',
        };
        out.push(p);
        out.push_str(l);
        out.push('\n');
    }
}

fn diff(fmt: Format, path: &str, hunks: &[Hunk], n: Numbers, rng: &mut Rng) -> String {
    let mut s = String::new();
    if fmt == Format::Git {
        s.push_str(&format!(
            "diff --git a/{path} b/{path}\nindex 3b18e51..a0b1c2d 100644\n--- a/{path}\n+++ b/{path}\n"
        ));
    } else if rng.chance(1, 2) {
        s.push_str(&format!("--- {path}\n+++ {path}\n"));
    } else {
        s.push_str(&format!(
            "--- {path}.orig\t2024-01-01 10:00:00\n+++ {path}\t2024-01-01 10:05:00\n"
        ));
    }
    for h in hunks {
        s.push_str(&header(h, n));
        s.push('\n');
        body(h, &mut s);
    }
    if rng.chance(1, 2) {
        fenced("diff", &s)
    } else {
        s
    }
}

fn codex(path: &str, hunks: &[Hunk]) -> String {
    let mut s = format!("*** Begin Patch\n*** Update File: {path}\n");
    for h in hunks {
        s.push_str("@@\n");
        body(h, &mut s);
    }
    s.push_str("*** End Patch\n");
    s
}

/// Old and new text of a hunk, in the part-of-a-line form when `sub` is allowed.
fn pair(h: &Hunk, nl: bool, sub: bool) -> (String, String) {
    if let (true, Some((o, n))) = (sub, &h.sub) {
        return (o.clone(), n.clone());
    }
    let (pre, post) = (h.pre(), h.post());
    // Without a final newline, deleting whole lines would leave an empty line behind: such a
    // replacement is written with its newline, as the agents do. So is one whose new text is
    // only blank lines: an empty `new_string` for lines that do not end in a newline means
    // "leave an empty line" to the agents' own tools, while salve deletes the lines whole (an
    // open question of semantics, not drawn here).
    let nl = nl || post.iter().all(|l| l.is_empty());
    (text(&pre, nl), text(&post, nl))
}

/// A SEARCH/REPLACE block: whole lines, as the agents' line-based matchers want.
fn search_replace(h: &Hunk, start: &str, end: &str, hint: Option<usize>) -> String {
    let (o, n) = pair(h, true, false);
    let hint = hint.map_or(String::new(), |l| format!(":start_line:{l}\n-------\n"));
    format!("{start}\n{hint}{o}=======\n{n}{end}\n")
}

fn json_block(v: &Value, rng: &mut Rng) -> String {
    let s = if rng.chance(1, 2) {
        serde_json::to_string_pretty(v)
    } else {
        serde_json::to_string(v)
    }
    .unwrap_or_default();
    if rng.chance(2, 3) {
        fenced("json", &format!("{s}\n"))
    } else {
        format!("{s}\n")
    }
}

/// The reply body (no prose) for `hunks` of `path` in `fmt`; `whole` is the new file for
/// whole-file formats. `sub` lets text formats quote part of a line.
pub fn render(
    fmt: Format,
    path: &str,
    hunks: &[Hunk],
    whole: &str,
    n: Numbers,
    sub: bool,
    rng: &mut Rng,
) -> String {
    match fmt {
        Format::Git | Format::Unified => diff(fmt, path, hunks, n, rng),
        Format::Codex => codex(path, hunks),
        Format::Aider => {
            let blocks: Vec<String> = hunks
                .iter()
                .map(|h| search_replace(h, "<<<<<<< SEARCH", ">>>>>>> REPLACE", None))
                .collect();
            if rng.chance(1, 2) {
                format!("{path}\n{}", fenced(lang(path), &blocks.concat()))
            } else {
                blocks
                    .iter()
                    .map(|b| format!("{path}\n{}", fenced(lang(path), b)))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }
        Format::Roo | Format::Cline => {
            let (tool, start, end) = if fmt == Format::Roo {
                ("apply_diff", "<<<<<<< SEARCH", ">>>>>>> REPLACE")
            } else {
                ("replace_in_file", "------- SEARCH", "+++++++ REPLACE")
            };
            let blocks: Vec<String> = hunks
                .iter()
                .map(|h| {
                    let line = (h.old_at as isize + 1 + n.offset).max(1) as usize;
                    let hint = (fmt == Format::Roo).then_some(line);
                    search_replace(h, start, end, hint)
                })
                .collect();
            format!(
                "<{tool}>\n<path>{path}</path>\n<diff>\n{}</diff>\n</{tool}>\n",
                blocks.join("\n")
            )
        }
        Format::ClaudeEdit | Format::ClaudeMultiEdit | Format::Gemini | Format::OpenCode => {
            json_edits(fmt, path, hunks, sub, rng)
        }
        Format::WholeFence => format!("{path}\n{}", fenced(lang(path), whole)),
        Format::ClaudeWrite => json_block(
            &json!({"name": "Write", "input": {"file_path": path, "content": whole}}),
            rng,
        ),
        Format::GeminiWrite => json_block(
            &json!({"name": "write_file", "args": {"file_path": path, "content": whole}}),
            rng,
        ),
        Format::WriteToFile => format!(
            "<write_to_file>\n<path>{path}</path>\n<content>\n{whole}</content>\n<line_count>{}</line_count>\n</write_to_file>\n",
            whole.lines().count()
        ),
    }
}

/// The JSON tool calls of the agents that edit by old and new strings.
fn json_edits(fmt: Format, path: &str, hunks: &[Hunk], sub: bool, rng: &mut Rng) -> String {
    let nl = rng.chance(1, 4);
    let edit = |h: &Hunk, old: &str, new: &str| {
        let (o, n) = pair(h, nl, sub);
        json!({ old: o, new: n })
    };
    match fmt {
        Format::ClaudeEdit => hunks
            .iter()
            .map(|h| {
                let mut e = edit(h, "old_string", "new_string");
                e["file_path"] = json!(path);
                json_block(&json!({"name": "Edit", "input": e}), rng)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Format::ClaudeMultiEdit => {
            let edits: Vec<Value> = hunks
                .iter()
                .map(|h| edit(h, "old_string", "new_string"))
                .collect();
            let v = json!({"name": "MultiEdit", "input": {"file_path": path, "edits": edits}});
            json_block(&v, rng)
        }
        Format::Gemini => hunks
            .iter()
            .map(|h| {
                let mut e = edit(h, "old_string", "new_string");
                e["file_path"] = json!(path);
                e["expected_replacements"] = json!(1);
                json_block(&json!({"name": "replace", "args": e}), rng)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Format::OpenCode => hunks
            .iter()
            .map(|h| {
                let mut e = edit(h, "oldString", "newString");
                e["filePath"] = json!(path);
                json_block(&e, rng)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `body` wrapped in prose, or not.
pub fn prose(body: String, path: &str, rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => body,
        1 => format!("Here is the change to `{path}`:\n\n{body}"),
        _ => format!(
            "I looked at `{path}` and made the update below.\n\n{body}\nThis keeps the behaviour the same elsewhere.\n"
        ),
    }
}
