//! gcc and clang (`file:line:col: error: message [-Wflag]`, and the linker's `undefined
//! reference`), and the same `file:line:col: error:` line from any other tool (shellcheck's
//! `-f gcc`, nasm, many linters) as [`Tool::Generic`].

use super::text::{location, trailing_code};
use super::{Failure, FailureKind, Tool};

/// Linker messages that name a symbol the code lacks or defines twice.
const LINKER_MESSAGES: &[&str] = &["undefined reference to ", "multiple definition of "];

pub(super) fn parse(log: &str, hint: Option<Tool>) -> Vec<Failure> {
    let tool = compiler(log, hint);
    let mut out = Vec::new();
    for line in log.lines() {
        if let Some(failure) = diagnostic(line, tool).or_else(|| linker(line, tool)) {
            out.push(failure);
        }
    }
    out
}

/// gcc or clang from the command, else from their fingerprints in the output (`make` and
/// `sh -c` checks); else generic.
fn compiler(log: &str, hint: Option<Tool>) -> Tool {
    if let Some(tool @ (Tool::Gcc | Tool::Clang)) = hint {
        return tool;
    }
    if log.contains(" generated.\n") || log.contains("clang: error:") {
        Tool::Clang
    } else if log.contains("collect2: error:") || log.contains(": In function ") {
        Tool::Gcc
    } else {
        Tool::Generic
    }
}

/// `main.c:7:32: error: 'missing' undeclared` or `fatal error:`; warnings are skipped.
fn diagnostic(line: &str, tool: Tool) -> Option<Failure> {
    let loc = location(line)?;
    let message = loc
        .rest
        .strip_prefix("error: ")
        .or_else(|| loc.rest.strip_prefix("fatal error: "))?;
    // Other parsers own these files' formats; a Go or Python line is not a C diagnostic.
    if loc.file.ends_with(".go") {
        return None;
    }
    let (message, code) = trailing_code(message);
    let kind = match (tool, code) {
        (_, Some(c)) if c.starts_with("-Werror") => FailureKind::Lint,
        (Tool::Generic, _) => FailureKind::Other,
        _ => FailureKind::Compile,
    };
    Some(
        Failure::new(tool, kind, message)
            .at(loc.file, Some(loc.line), loc.column)
            .code(code),
    )
}

/// `link.c:(.text+0xa): undefined reference to `helper'`: the file is the source the object came
/// from; the linker knows no line.
fn linker(line: &str, tool: Tool) -> Option<Failure> {
    let start = LINKER_MESSAGES.iter().find_map(|m| line.find(m))?;
    let message = &line[start..];
    let before = line[..start].trim_end().strip_suffix(':')?;
    let file = before
        .split_once(":(")
        .map(|(file, _)| file)
        .filter(|f| !f.is_empty() && !f.contains(' '));
    let tool = if tool == Tool::Generic {
        Tool::Gcc
    } else {
        tool
    };
    let mut failure = Failure::new(tool, FailureKind::Compile, message);
    failure.code = Some("link".to_owned());
    if let Some(file) = file {
        failure = failure.at(file, None, None);
    }
    Some(failure)
}
