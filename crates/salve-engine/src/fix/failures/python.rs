//! pytest (the FAILURES and ERRORS sections, then the short summary for what they lack) and
//! `python -m unittest` (`FAIL:` and `ERROR:` blocks with their tracebacks).

use super::text::{join_lines, location, number};
use super::{Failure, FailureKind, Tool};

/// Exceptions that mean the code did not load, rather than a test that ran and failed.
const LOAD_ERRORS: &[&str] = &[
    "SyntaxError",
    "IndentationError",
    "TabError",
    "ImportError",
    "ModuleNotFoundError",
];

pub(super) fn parse_pytest(log: &str) -> Vec<Failure> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    let mut section = Section::None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("====") {
            section = Section::of(line);
            i += 1;
            continue;
        }
        match section {
            Section::Failures | Section::Errors => {
                if let Some(title) = block_title(line) {
                    let end = (i + 1..lines.len())
                        .find(|&j| block_title(lines[j]).is_some() || lines[j].starts_with("===="))
                        .unwrap_or(lines.len());
                    out.extend(pytest_block(title, &lines[i + 1..end]));
                    i = end;
                    continue;
                }
            }
            Section::Summary => {
                if let Some(failure) = summary_line(line) {
                    let known = out.iter().any(|f: &Failure| f.test == failure.test);
                    if !known {
                        out.push(failure);
                    }
                }
            }
            Section::None => {}
        }
        i += 1;
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Failures,
    Errors,
    Summary,
}

impl Section {
    fn of(header: &str) -> Section {
        let name = header.trim_matches(|c| c == '=' || c == ' ');
        match name {
            "FAILURES" => Section::Failures,
            "ERRORS" => Section::Errors,
            "short test summary info" => Section::Summary,
            _ => Section::None,
        }
    }
}

/// `____ TestCalc.test_add ____` → `TestCalc.test_add`.
fn block_title(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("___")?.trim_start_matches('_');
    let inner = inner.strip_suffix("___")?.trim_end_matches('_');
    let title = inner.trim();
    (!title.is_empty() && inner.starts_with(' ')).then_some(title)
}

fn pytest_block(title: &str, body: &[&str]) -> Option<Failure> {
    let collecting = title.strip_prefix("ERROR collecting ");
    let message_lines: Vec<&str> = body
        .iter()
        .filter_map(|l| l.strip_prefix('E'))
        .filter(|l| l.is_empty() || l.starts_with(' '))
        .map(str::trim)
        .collect();
    // The last `file.py:line: …` line is where the exception was raised.
    let place = body
        .iter()
        .rev()
        .filter_map(|l| location(l))
        .find(|l| l.file.ends_with(".py"));
    let mut message = join_lines(message_lines);
    let raised = place
        .as_ref()
        .map(|p| p.rest)
        .filter(|r| !r.is_empty() && !r.starts_with("in "));
    if message.is_empty() {
        message = raised.unwrap_or(title).to_owned();
    }
    let code = exception_name(&message).or(raised).map(str::to_owned);
    let kind = match (&collecting, code.as_deref()) {
        (Some(_), _) => FailureKind::Compile,
        (None, Some(c)) if LOAD_ERRORS.contains(&c) => FailureKind::Compile,
        _ => FailureKind::Test,
    };
    let mut failure = Failure::new(Tool::Pytest, kind, message);
    failure.code = code;
    match (place, collecting) {
        (Some(p), _) => failure = failure.at(p.file, Some(p.line), p.column),
        (None, Some(file)) => failure = failure.at(file, None, None),
        (None, None) => {}
    }
    if collecting.is_none() {
        // A fixture's error is titled after the test it was for.
        let test = ["ERROR at setup of ", "ERROR at teardown of "]
            .iter()
            .find_map(|p| title.strip_prefix(p))
            .unwrap_or(title);
        failure.test = Some(test.to_owned());
    }
    Some(failure)
}

/// `FAILED test_calc.py::TestCalc::test_add - AssertionError: 5 != 4`, or `ERROR test_x.py`.
fn summary_line(line: &str) -> Option<Failure> {
    let rest = line
        .strip_prefix("FAILED ")
        .or_else(|| line.strip_prefix("ERROR "))?;
    let (node, message) = rest.split_once(" - ").unwrap_or((rest, ""));
    let (file, test) = match node.split_once("::") {
        Some((file, test)) => (file, Some(test.replace("::", "."))),
        None => (node, None),
    };
    let message = if message.is_empty() { node } else { message };
    let code = exception_name(message).map(str::to_owned);
    let kind = match (&test, code.as_deref()) {
        (None, _) => FailureKind::Compile,
        (_, Some(c)) if LOAD_ERRORS.contains(&c) => FailureKind::Compile,
        _ => FailureKind::Test,
    };
    let mut failure = Failure::new(Tool::Pytest, kind, message).at(file, None, None);
    failure.code = code;
    failure.test = test;
    Some(failure)
}

/// `ZeroDivisionError` from `ZeroDivisionError: division by zero`.
fn exception_name(message: &str) -> Option<&str> {
    let first = message.lines().next()?;
    let name = first.split_once(':').map_or(first, |(n, _)| n);
    let bare = name.rsplit('.').next()?;
    let looks = ["Error", "Exception", "Exit", "Interrupt", "Failed"]
        .iter()
        .any(|s| bare.ends_with(s));
    (looks
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.'))
    .then_some(name)
}

/// unittest's blocks: a line of `=`, `FAIL: name (id)` or `ERROR: name (id)`, a line of `-`,
/// then the traceback up to the next separator.
pub(super) fn parse_unittest(log: &str) -> Vec<Failure> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for i in 1..lines.len() {
        if !lines[i - 1].starts_with("=====") {
            continue;
        }
        let Some(header) = lines[i]
            .strip_prefix("FAIL: ")
            .or_else(|| lines[i].strip_prefix("ERROR: "))
        else {
            continue;
        };
        let body_start = i + 2;
        let end = (body_start..lines.len())
            .find(|&j| lines[j].starts_with("=====") || lines[j].starts_with("-----"))
            .unwrap_or(lines.len());
        if body_start <= end {
            out.extend(unittest_block(header, &lines[body_start..end]));
        }
    }
    out
}

fn unittest_block(header: &str, body: &[&str]) -> Option<Failure> {
    let frames: Vec<(usize, &str, u32)> = body
        .iter()
        .enumerate()
        .filter_map(|(i, l)| frame(l).map(|(file, line)| (i, file, line)))
        .collect();
    // The deepest frame in the project's code, not in Python's own library.
    let own = |file: &&str| !file.contains("/lib/python") && !file.contains("site-packages");
    let place = frames
        .iter()
        .rev()
        .find(|(_, file, _)| own(file))
        .or(frames.last());
    // The exception is what follows the traceback: the unindented lines after the last frame.
    let after = frames.last().map_or(0, |(i, _, _)| i + 1);
    let message = join_lines(
        body[after..]
            .iter()
            .skip_while(|l| l.starts_with(' ') || l.is_empty())
            .copied(),
    );
    let code = exception_name(&message).map(str::to_owned);
    let kind = match code.as_deref() {
        Some(c) if LOAD_ERRORS.contains(&c) => FailureKind::Compile,
        _ => FailureKind::Test,
    };
    let mut failure = Failure::new(Tool::Unittest, kind, message);
    failure.code = code;
    if let Some((_, file, line)) = place {
        failure = failure.at(file, Some(*line), None);
    }
    // `test_add (test_calc.TestCalc.test_add)`: the id in parentheses names the test; a loader
    // failure names a module that did not import, not a test.
    let id = header
        .rsplit_once(" (")
        .and_then(|(_, id)| id.strip_suffix(')'))
        .unwrap_or(header);
    if !id.starts_with("unittest.loader.") {
        failure.test = Some(id.to_owned());
    }
    Some(failure)
}

/// `  File "/tmp/x/test_calc.py", line 8, in test_add` → `("/tmp/x/test_calc.py", 8)`.
fn frame(line: &str) -> Option<(&str, u32)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (file, rest) = rest.split_once("\", line ")?;
    Some((file, number(rest)?.0))
}
