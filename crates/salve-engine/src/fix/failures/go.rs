//! go build and go vet (`file.go:line:col: message`, vet's prefixed with `vet: `) and go test
//! (`--- FAIL: TestX` with its `file_test.go:line: message` lines, or a panic's stack).

use super::text::location;
use super::{Failure, FailureKind, Tool};

/// Messages of Go's type checker, as opposed to syntax and declaration errors.
const TYPE_MESSAGES: &[&str] = &[
    "cannot use ",
    "mismatched types",
    "invalid operation",
    "cannot convert",
    "not enough arguments",
    "too many arguments",
    "does not implement",
    "has no field or method",
];

pub(super) fn parse(log: &str) -> Vec<Failure> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(failure) = compiler_line(line) {
            out.push(failure);
        } else if let Some(name) = fail_header(line) {
            out.extend(test_failures(name, line, &lines[i + 1..]));
        }
    }
    out
}

fn compiler_line(line: &str) -> Option<Failure> {
    let (vet, line) = match line.strip_prefix("vet: ") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let loc = location(line)?;
    if !loc.file.ends_with(".go") || loc.column.is_none() || loc.rest.is_empty() {
        return None;
    }
    let kind = if vet {
        FailureKind::Lint
    } else if TYPE_MESSAGES.iter().any(|m| loc.rest.contains(m)) {
        FailureKind::Type
    } else {
        FailureKind::Compile
    };
    Some(Failure::new(Tool::Go, kind, loc.rest).at(loc.file, Some(loc.line), loc.column))
}

/// `--- FAIL: TestAdd (0.00s)`, possibly indented for a subtest → `TestAdd`.
fn fail_header(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("--- FAIL: ")?;
    Some(rest.split_once(" (").map_or(rest, |(name, _)| name).trim())
}

/// The test's own report lines, each a failure; else the panic that ended it. A parent test
/// whose subtests failed has neither and yields nothing (the subtests are reported).
fn test_failures(name: &str, header: &str, after: &[&str]) -> Vec<Failure> {
    let indent = header.len() - header.trim_start().len();
    let mut out: Vec<Failure> = Vec::new();
    for line in after {
        let depth = line.len() - line.trim_start().len();
        if line.trim().is_empty() || depth <= indent || line.trim_start().starts_with("--- ") {
            break;
        }
        match location(line.trim_start()).filter(|l| l.file.ends_with(".go")) {
            Some(loc) if depth == indent + 4 => {
                let failure = Failure::new(Tool::Go, FailureKind::Test, loc.rest).at(
                    loc.file,
                    Some(loc.line),
                    loc.column,
                );
                out.push(failure);
            }
            // Deeper lines continue the message of the line before.
            _ => {
                if let Some(last) = out.last_mut() {
                    last.message.push('\n');
                    last.message.push_str(line.trim());
                }
            }
        }
    }
    if out.is_empty() {
        out.extend(panic(after));
    }
    for failure in &mut out {
        failure.test = Some(name.to_owned());
    }
    out
}

/// `panic: message` right after the header, placed at the first stack frame outside Go's own
/// runtime and testing packages.
fn panic(after: &[&str]) -> Option<Failure> {
    let first = after.first()?;
    let message = first.strip_prefix("panic: ")?;
    let message = message.strip_suffix(" [recovered]").unwrap_or(message);
    let mut failure = Failure::new(Tool::Go, FailureKind::Test, message);
    failure.code = Some("panic".to_owned());
    let frame = after
        .iter()
        .take_while(|l| !l.starts_with("FAIL") && !l.starts_with("ok "))
        .filter_map(|l| l.strip_prefix('\t'))
        .filter_map(|l| location(l.split(" +0x").next().unwrap_or(l)))
        .find(|l| {
            let f = l.file;
            f.ends_with(".go")
                && ![
                    "/src/runtime/",
                    "/src/testing/",
                    "/usr/lib/go",
                    "/usr/local/go/",
                ]
                .iter()
                .any(|goroot| f.contains(goroot))
        });
    if let Some(loc) = frame {
        failure = failure.at(loc.file, Some(loc.line), None);
    }
    Some(failure)
}
