//! tsc (plain and `--pretty`) and eslint (stylish and unix formats).

use super::text::{location, number, trailing_code};
use super::{Failure, FailureKind, Tool};

/// tsc's `file(line,col): error TS2322: message` and `file:line:col - error TS2322: message`,
/// with the indented lines that continue a message (`Types of parameters … are incompatible.`).
pub(super) fn parse_tsc(log: &str) -> Vec<Failure> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((file, line_no, column, code, message)) = tsc_header(line) else {
            continue;
        };
        let continuation = lines[i + 1..]
            .iter()
            .take_while(|l| l.starts_with("  ") && !l.trim().is_empty());
        let mut message = message.to_owned();
        for more in continuation {
            message.push('\n');
            message.push_str(more.trim_end());
        }
        // TS1xxx are syntax errors; the rest come from the type checker.
        let kind = if code.starts_with('1') {
            FailureKind::Compile
        } else {
            FailureKind::Type
        };
        let mut failure = Failure::new(Tool::Tsc, kind, message);
        failure.code = Some(format!("TS{code}"));
        if let Some(file) = file {
            failure = failure.at(file, line_no, column);
        }
        out.push(failure);
    }
    out
}

type TscHeader<'a> = (Option<&'a str>, Option<u32>, Option<u32>, &'a str, &'a str);

fn tsc_header(line: &str) -> Option<TscHeader<'_>> {
    // A project-level error has no location: `error TS5058: The specified path does not exist`.
    if let Some(rest) = line.strip_prefix("error TS") {
        let (code, message) = tsc_code(rest)?;
        return Some((None, None, None, code, message));
    }
    if let Some(open) = line.find("): error TS") {
        let head = &line[..open];
        let paren = head.rfind('(')?;
        let (row, col) = head[paren + 1..].split_once(',')?;
        let (code, message) = tsc_code(&line[open + "): error TS".len()..])?;
        return Some((
            Some(&head[..paren]),
            row.parse().ok(),
            col.parse().ok(),
            code,
            message,
        ));
    }
    let (place, rest) = line.split_once(" - error TS")?;
    let loc = location(place)?;
    let (code, message) = tsc_code(rest)?;
    Some((Some(loc.file), Some(loc.line), loc.column, code, message))
}

/// `2322: message` after `error TS` → `("2322", "message")`.
fn tsc_code(rest: &str) -> Option<(&str, &str)> {
    let (digits, message) = rest.split_once(": ")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits, message.trim()))
}

/// Eslint's stylish format: a file path alone on a line, then indented
/// `line:col  severity  message  rule` rows. Warnings count only when there are no errors
/// (then `--max-warnings` is what failed the check).
pub(super) fn parse_eslint(log: &str) -> Vec<Failure> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut file: Option<&str> = None;
    for line in log.lines() {
        if line.is_empty() {
            file = None;
        } else if !line.starts_with(' ') {
            file = looks_like_path(line).then_some(line.trim_end());
            if let Some((failure, is_error)) = eslint_unix(line) {
                push(&mut errors, &mut warnings, failure, is_error);
            }
        } else if let Some(current) = file {
            if let Some((failure, is_error)) = stylish_row(current, line) {
                push(&mut errors, &mut warnings, failure, is_error);
            }
        }
    }
    if errors.is_empty() {
        warnings
    } else {
        errors
    }
}

fn push(errors: &mut Vec<Failure>, warnings: &mut Vec<Failure>, f: Failure, is_error: bool) {
    if is_error {
        errors.push(f);
    } else {
        warnings.push(f);
    }
}

fn looks_like_path(line: &str) -> bool {
    let line = line.trim_end();
    let exts = [
        ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte",
    ];
    !line.contains(": ") && exts.iter().any(|e| line.ends_with(e))
}

/// `  4:17  error  'y' is not defined  no-undef`.
fn stylish_row(file: &str, line: &str) -> Option<(Failure, bool)> {
    let row = line.trim_start();
    let (place, rest) = row.split_once(' ')?;
    let (line_no, col) = place.split_once(':')?;
    let (line_no, col) = (number(line_no)?.0, number(col)?.0);
    let rest = rest.trim_start();
    let (severity, rest) = rest.split_once(' ')?;
    let is_error = match severity {
        "error" => true,
        "warning" => false,
        _ => return None,
    };
    let rest = rest.trim();
    // The rule id is the last column, two or more spaces after the message.
    let (message, rule) = match rest.rfind("  ") {
        Some(gap) if is_rule(rest[gap..].trim()) => {
            (rest[..gap].trim_end(), Some(rest[gap..].trim()))
        }
        _ => (rest, None),
    };
    Some((eslint_failure(file, line_no, col, message, rule), is_error))
}

fn is_rule(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '/' | '@' | '_' | '.'))
}

/// `/path/a.js:4:17: 'y' is not defined. [Error/no-undef]`.
fn eslint_unix(line: &str) -> Option<(Failure, bool)> {
    let loc = location(line)?;
    let (message, tag) = trailing_code(loc.rest);
    let (severity, rule) = match tag?.split_once('/') {
        Some((severity, rule)) => (severity, Some(rule)),
        None => (tag?, None),
    };
    let is_error = match severity {
        "Error" => true,
        "Warning" => false,
        _ => return None,
    };
    let failure = eslint_failure(loc.file, loc.line, loc.column?, message, rule);
    Some((failure, is_error))
}

fn eslint_failure(
    file: &str,
    line: u32,
    column: u32,
    message: &str,
    rule: Option<&str>,
) -> Failure {
    let kind = if rule.is_none() && message.starts_with("Parsing error") {
        FailureKind::Compile
    } else {
        FailureKind::Lint
    };
    Failure::new(Tool::Eslint, kind, message)
        .at(file, Some(line), Some(column))
        .code(rule)
}
