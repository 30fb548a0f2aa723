//! A bounded, numbered excerpt of the file a failure points at, for the repair prompt.

use std::fmt::Write as _;
use std::path::Path;

use super::Failure;

/// `lines_around` is capped at this many lines on each side.
pub const MAX_LINES_AROUND: usize = 50;
/// Files larger than this are not excerpted: they are generated or data, not code to repair.
const MAX_FILE: u64 = 8 << 20;
/// Longer lines are cut (minified code would fill the prompt).
const MAX_LINE: usize = 300;

/// Up to `lines_around` lines either side of the failure's line (the file's start when it has
/// none), numbered, the failing line marked with `>` and its column with a `^` line:
///
/// ```text
///   2 |     let a = 1;
/// > 3 |     let s: String = a + b;
///     |                     ^
///   4 | }
/// ```
///
/// `None` when the failure names no file, or one that is missing, binary-sized, or outside `dir`
/// (an error message must not make salve show the model a file from elsewhere on the machine).
pub fn excerpt(dir: &Path, failure: &Failure, lines_around: usize) -> Option<String> {
    let file = failure.file.as_deref()?;
    let root = std::fs::canonicalize(dir).ok()?;
    let path = std::fs::canonicalize(root.join(file)).ok()?;
    if !path.starts_with(&root) || std::fs::metadata(&path).ok()?.len() > MAX_FILE {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return None;
    }
    let around = lines_around.min(MAX_LINES_AROUND);
    let target = failure.line.map_or(1, |l| l as usize).clamp(1, lines.len());
    let first = target.saturating_sub(around).max(1);
    let last = (target + around).min(lines.len());
    let width = last.to_string().len();
    let mut out = String::new();
    for n in first..=last {
        let line = cut(lines[n - 1]);
        let mark = if n == target && failure.line.is_some() {
            '>'
        } else {
            ' '
        };
        let _ = writeln!(out, "{mark} {n:>width$} | {line}");
        if let (true, Some(column)) = (mark == '>', failure.column) {
            // Tabs are kept so the caret lines up in any tab width.
            let pad: String = line
                .chars()
                .take((column as usize).saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "  {:width$} | {pad}^", "");
        }
    }
    Some(out)
}

fn cut(line: &str) -> String {
    if line.len() <= MAX_LINE {
        return line.to_owned();
    }
    let mut end = MAX_LINE;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}
