//! Where a refused hunk's candidates sit, in words and lines a model can act on.
//!
//! A candidate's line range and character diff say *what* differs; to correct an ambiguous or
//! misquoted edit in one round trip, a model (or a person) also needs to see *where*: which
//! function, class or section the place belongs to, and the file's own lines around it, numbered.
//! [`describe_candidates`] adds both to every candidate of a hunk report: a [`Scope`] and an
//! excerpt of [`ExcerptLine`]s ([`CONTEXT`] lines before, the candidate's lines, [`CONTEXT`]
//! after, at most [`MAX_EXCERPT`] in all). [`numbered`] renders an excerpt as text.
//!
//! The scope is found by a heuristic that knows no language grammar:
//!
//! - In Markdown (`.md`, `.markdown`, `.mdx`), it is the nearest preceding ATX heading (`#` to
//!   `######` and a space). Setext headings (underlined with `===`) and `#` lines inside fenced
//!   code are not told apart.
//! - Elsewhere it walks back from the candidate's first non-blank line and takes the first line
//!   indented less than that line which opens a block: after modifiers (`pub`, `async`,
//!   `export`, `static`, ...) it starts with a keyword such as `fn`, `def`, `class`, `function`,
//!   `impl`, `struct`, `func`, `trait`, `interface` or `module`, or it looks like a C-style
//!   function or method head (`name(...) {`, not `if (...) {`). Lines indented less that open no
//!   scope (an `if`, a loop) become the new bar; comments, preprocessor lines and lone braces do
//!   not. It therefore needs the file to be indented to show nesting: a top-level candidate, or
//!   code flattened to column 0, has no scope; a function whose head spans several lines is named
//!   by the line holding the keyword; an arrow function assigned to a `const` is not recognised.
//!   The walk stops after [`MAX_SCAN`] lines.

use crate::report::{Candidate, HunkReport};
pub use crate::report::{ExcerptLine, Scope};
use crate::text::Doc;

/// Lines shown before and after a candidate.
pub(crate) const CONTEXT: usize = 2;
/// At most this many lines per excerpt: a longer one keeps its head and its tail.
pub(crate) const MAX_EXCERPT: usize = 16;
/// Lines of the tail kept when an excerpt is cut.
const TAIL: usize = 6;
/// Characters shown of one line (scope or excerpt); a longer line ends in `… N more characters`.
pub(crate) const MAX_LINE_CHARS: usize = 200;
/// Lines walked back looking for a scope.
pub(crate) const MAX_SCAN: usize = 5_000;

/// Give every candidate of `hunks` its scope and excerpt from `text`, the file (named `path`)
/// that the candidates' line numbers refer to.
pub fn describe_candidates(hunks: &mut [HunkReport], text: &str, path: &str) {
    if hunks.iter().all(|h| h.candidates.is_empty()) {
        return;
    }
    let doc = Doc::parse(text);
    let markdown = is_markdown(path);
    for cand in hunks.iter_mut().flat_map(|h| h.candidates.iter_mut()) {
        describe(cand, &doc, markdown);
    }
}

fn describe(cand: &mut Candidate, doc: &Doc, markdown: bool) {
    let n = doc.len();
    if n == 0 {
        return;
    }
    // 0-based, inclusive.
    let first = cand.lines.start.saturating_sub(1).min(n - 1);
    let last = cand.lines.end.saturating_sub(1).clamp(first, n - 1);
    let from = first.saturating_sub(CONTEXT);
    let to = (last + CONTEXT).min(n - 1);
    let mut numbers: Vec<usize> = (from..=to).collect();
    if numbers.len() > MAX_EXCERPT {
        numbers.drain(MAX_EXCERPT - TAIL..numbers.len() - TAIL);
    }
    cand.excerpt = numbers
        .into_iter()
        .map(|i| ExcerptLine {
            line: i + 1,
            text: cap(doc.line(i).trim_end_matches('\r')),
        })
        .collect();
    cand.scope = if markdown {
        heading(doc, first)
    } else {
        code_scope(doc, first, last)
    };
}

/// The excerpt of `cand` as text, one line each (`> 12 | text`): `>` marks the candidate's own
/// lines, the number is right-aligned, an empty line ends at the `|`, and `⋮` stands for lines
/// an excerpt left out.
pub fn numbered(cand: &Candidate) -> String {
    let width = cand
        .excerpt
        .iter()
        .map(|l| l.line.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    let mut prev: Option<usize> = None;
    for l in &cand.excerpt {
        if prev.is_some_and(|p| l.line > p + 1) {
            out.push_str(&format!("  {:>width$} ⋮\n", ""));
        }
        let mark = if (cand.lines.start..=cand.lines.end).contains(&l.line) {
            '>'
        } else {
            ' '
        };
        if l.text.is_empty() {
            out.push_str(&format!("{mark} {:>width$} |\n", l.line));
        } else {
            out.push_str(&format!("{mark} {:>width$} | {}\n", l.line, l.text));
        }
        prev = Some(l.line);
    }
    out
}

fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".mdx"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

fn cap(line: &str) -> String {
    crate::diag::clip(line, MAX_LINE_CHARS)
}

fn scope_at(doc: &Doc, i: usize) -> Scope {
    Scope {
        line: i + 1,
        text: cap(doc.line(i).trim()),
    }
}

/// The nearest ATX heading at or before line `first` (0-based).
fn heading(doc: &Doc, first: usize) -> Option<Scope> {
    (first.saturating_sub(MAX_SCAN)..=first)
        .rev()
        .find(|&i| {
            let line = doc.line(i);
            let hashes = line.bytes().take_while(|&b| b == b'#').count();
            (1..=6).contains(&hashes) && line[hashes..].starts_with([' ', '\t'])
        })
        .map(|i| scope_at(doc, i))
}

/// The scope of a candidate spanning lines `first..=last` (0-based) of a code file.
fn code_scope(doc: &Doc, first: usize, last: usize) -> Option<Scope> {
    let own = (first..=last).find(|&i| !doc.line(i).trim().is_empty())?;
    let mut bar = indent(doc.line(own));
    if bar == 0 {
        return None;
    }
    // Whether the line after this one (in file order) is a lone `{`: a head in the Allman or
    // K&R style.
    let mut brace_next = false;
    for i in (own.saturating_sub(MAX_SCAN)..own).rev() {
        let line = doc.line(i);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if transparent(trimmed) {
            brace_next = trimmed == "{";
            continue;
        }
        let width = indent(line);
        let braced = std::mem::take(&mut brace_next);
        if width >= bar {
            continue;
        }
        if opens_scope(trimmed) || (braced && opens_scope(&format!("{trimmed} {{"))) {
            return Some(scope_at(doc, i));
        }
        bar = width;
        if bar == 0 {
            return None;
        }
    }
    None
}

/// Leading whitespace in columns, a tab counting 4.
fn indent(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// Lines that say nothing about nesting: comments, preprocessor lines, lone braces.
fn transparent(trimmed: &str) -> bool {
    ["#", "//", "/*", "*", "--", ";"]
        .iter()
        .any(|p| trimmed.starts_with(p))
        || matches!(trimmed, "{" | "}" | "};" | ")" | "]")
}

/// Words that may come before the keyword of a definition.
const MODIFIERS: &[&str] = &[
    "pub",
    "pub(crate)",
    "pub(super)",
    "async",
    "unsafe",
    "const",
    "extern",
    "export",
    "default",
    "static",
    "public",
    "private",
    "protected",
    "internal",
    "abstract",
    "final",
    "override",
    "virtual",
    "inline",
    "sealed",
    "data",
    "open",
    "partial",
    "local",
];

/// Keywords that open a function, class, impl or similar block.
const KEYWORDS: &[&str] = &[
    "fn",
    "def",
    "class",
    "function",
    "function*",
    "impl",
    "struct",
    "enum",
    "union",
    "trait",
    "func",
    "interface",
    "module",
    "mod",
    "namespace",
    "object",
    "record",
    "macro_rules!",
    "proc",
    "sub",
];

/// Words that head a control-flow block, not a definition.
const CONTROL: &[&str] = &[
    "if",
    "else",
    "for",
    "foreach",
    "while",
    "do",
    "switch",
    "match",
    "case",
    "catch",
    "try",
    "return",
    "with",
    "elif",
    "except",
    "finally",
    "loop",
    "unless",
    "until",
    "when",
    "using",
    "lock",
    "synchronized",
    "new",
    "throw",
    "await",
    "yield",
    "let",
    "var",
];

/// Whether a line (trimmed) opens a definition; see the module docs.
fn opens_scope(trimmed: &str) -> bool {
    let mut words = trimmed.split_whitespace().peekable();
    while words.peek().is_some_and(|w| MODIFIERS.contains(w)) {
        words.next();
    }
    let Some(word) = words.next() else {
        return false;
    };
    let word = word.split(['(', '<']).next().unwrap_or(word);
    if KEYWORDS.contains(&word) {
        return true;
    }
    if CONTROL.contains(&word) || word.starts_with('}') {
        return false;
    }
    // A C-style function or method head: `type name(args) {` or `name(args) {`.
    let head = trimmed.trim_end_matches(|c: char| c == '{' || c.is_whitespace());
    trimmed.ends_with('{')
        && head.ends_with(')')
        && head.find('(').is_some_and(|open| {
            head[..open]
                .trim_end()
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !head[..open].contains('=')
        })
}

#[cfg(test)]
#[path = "excerpt_tests.rs"]
mod tests;
