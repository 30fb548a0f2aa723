//! cargo, rustc, clippy and libtest: JSON diagnostics (`--message-format=json`) where a line is
//! one, the human format otherwise, and test panics.

use serde_json::Value;

use super::text::{join_lines, location};
use super::{Failure, FailureKind, Tool};

/// rustc error codes that are type errors rather than other compile errors.
const TYPE_CODES: &[&str] = &[
    "E0053", "E0060", "E0061", "E0063", "E0069", "E0107", "E0271", "E0277", "E0282", "E0283",
    "E0308", "E0369", "E0412", "E0560", "E0599", "E0604", "E0605", "E0606", "E0607", "E0609",
    "E0614", "E0618", "E0620", "E0631",
];

/// Summary lines cargo and rustc print after the real errors.
const SUMMARIES: &[&str] = &[
    "aborting due to",
    "could not compile",
    "test failed, to rerun",
    "build failed",
    "Some errors have detailed explanations",
];

pub(super) fn parse(log: &str) -> Vec<Failure> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with('{') {
            out.extend(json_diagnostic(line));
        } else if let Some(failure) = text_diagnostic(&lines[i..]) {
            out.push(failure);
        } else if let Some(failure) = panic(&lines[i..]) {
            out.push(failure);
        }
        i += 1;
    }
    out
}

fn kind_of(code: Option<&str>) -> FailureKind {
    match code {
        None => FailureKind::Compile,
        Some(c) if TYPE_CODES.contains(&c) => FailureKind::Type,
        // Lint names: `clippy::unwrap_used`, `unused_variables` under `-D warnings`.
        Some(c) if !c.starts_with('E') || c.starts_with("clippy::") => FailureKind::Lint,
        Some(_) => FailureKind::Compile,
    }
}

fn is_summary(message: &str) -> bool {
    SUMMARIES.iter().any(|s| message.starts_with(s))
}

/// A `compiler-message` line at level error.
fn json_diagnostic(line: &str) -> Option<Failure> {
    let value: Value = serde_json::from_str(line).ok()?;
    if value.get("reason")?.as_str()? != "compiler-message" {
        return None;
    }
    let message = value.get("message")?;
    let level = message.get("level")?.as_str()?;
    if !level.starts_with("error") {
        return None;
    }
    let text = message.get("message")?.as_str()?;
    if is_summary(text) {
        return None;
    }
    let code = message
        .get("code")
        .and_then(|c| c.get("code"))
        .and_then(Value::as_str);
    let mut failure = Failure::new(Tool::Cargo, kind_of(code), text).code(code);
    let spans = message.get("spans").and_then(Value::as_array);
    let primary = spans.and_then(|s| {
        s.iter()
            .find(|span| span.get("is_primary").and_then(Value::as_bool) == Some(true))
    });
    if let Some(span) = primary {
        let number = |key: &str| {
            span.get(key)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        if let Some(file) = span.get("file_name").and_then(Value::as_str) {
            failure = failure.at(file, number("line_start"), number("column_start"));
        }
    }
    Some(failure)
}

/// `error[E0308]: message` followed, within its block, by ` --> file:line:col` and for lints a
/// `` = note: `-D clippy::x` implied `` line that names the lint.
fn text_diagnostic(lines: &[&str]) -> Option<Failure> {
    let header = lines.first()?.strip_prefix("error")?;
    let (code, message) = match header.strip_prefix('[') {
        Some(rest) => {
            let (code, rest) = rest.split_once("]: ")?;
            (Some(code.to_owned()), rest)
        }
        None => (None, header.strip_prefix(": ")?),
    };
    if is_summary(message) {
        return None;
    }
    let mut code = code;
    let mut place = None;
    // The block ends at the next diagnostic header.
    for line in lines.iter().skip(1).take_while(|l| !is_header(l)) {
        let trimmed = line.trim_start();
        if let Some(at) = trimmed.strip_prefix("--> ") {
            if place.is_none() {
                place = location(at.trim()).map(|l| (l.file, l.line, l.column));
            }
        } else if code.is_none() {
            code = lint_name(trimmed);
        }
    }
    let mut failure = Failure::new(Tool::Cargo, kind_of(code.as_deref()), message);
    failure.code = code;
    if let Some((file, line, column)) = place {
        failure = failure.at(file, Some(line), column);
    }
    Some(failure)
}

fn is_header(line: &str) -> bool {
    ["error", "warning", "note:", "help:"]
        .iter()
        .any(|h| line.starts_with(h))
        || line.starts_with("   Compiling ")
}

/// The lint a `= note:` line names: `` `-D clippy::unwrap-used` implied by `-D warnings` `` or
/// `` `#[deny(unused_variables)]` on by default ``, spelled as in JSON diagnostics.
fn lint_name(line: &str) -> Option<String> {
    let note = line.strip_prefix("= note: `")?;
    let name = note
        .strip_prefix("-D ")
        .or_else(|| note.strip_prefix("#[deny("))
        .or_else(|| note.strip_prefix("#[forbid("))?;
    let end = name.find(['`', ')'])?;
    let name = &name[..end];
    if name == "warnings" {
        return None;
    }
    Some(name.replace('-', "_"))
}

/// `thread 'tests::adds' (123) panicked at src/lib.rs:11:9:` and the message lines after it, or
/// the older `thread 'x' panicked at 'message', src/lib.rs:11:9`.
fn panic(lines: &[&str]) -> Option<Failure> {
    let rest = lines.first()?.strip_prefix("thread '")?;
    let (name, rest) = rest.split_once('\'')?;
    let (_, at) = rest.split_once("panicked at ")?;
    let (place, message) = if let Some(old) = at.strip_prefix('\'') {
        let (message, place) = old.rsplit_once("', ")?;
        (place, message.to_owned())
    } else {
        let place = at.strip_suffix(':').unwrap_or(at);
        let body = lines
            .iter()
            .skip(1)
            .take_while(|l| {
                !l.is_empty() && !l.starts_with("note: ") && !l.starts_with("stack backtrace:")
            })
            .copied();
        (place, join_lines(body))
    };
    let loc = location(place)?;
    let mut failure = Failure::new(Tool::Cargo, FailureKind::Test, message).at(
        loc.file,
        Some(loc.line),
        loc.column,
    );
    if name != "main" {
        failure.test = Some(name.to_owned());
    }
    Some(failure)
}
