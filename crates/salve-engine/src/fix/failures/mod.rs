//! Failure extraction: [`extract`] turns a check's log into structured [`Failure`]s (file, line,
//! column, message, kind, tool, code) that the repair prompt and the classifier use.
//!
//! Parsers, each tested on real output saved from the real tool
//! (`tests/fixtures/check/<tool>/`):
//! - cargo and rustc: `--message-format=json` lines, and the human format otherwise, plus libtest
//!   panics (`thread 'x' panicked at file:line:col:`); [`with_message_format_json`] adds the flag
//!   to a cargo command that lacks it;
//! - tsc (plain `file(l,c): error TS…` and `--pretty`), eslint (stylish and unix);
//! - pytest (the failures and errors sections, then the short summary) and `python -m unittest`;
//! - go build, go vet and go test (`--- FAIL:` blocks, panics);
//! - gcc and clang (`file:line:col: error: …`, linker errors), and the same line from any other
//!   tool as [`Tool::Generic`].
//!
//! Every parser reads the whole log: a `make` or `sh -c` check that runs several tools gets all
//! of their failures. The command only names the tool where formats are shared (gcc or clang).
//! Warnings are left out: they do not fail a check unless promoted, and then they are printed
//! as errors. Paths under the check's directory become relative.
//!
//! [`excerpt`] reads a bounded, numbered excerpt around a failure for the repair prompt;
//! [`signature`] reduces failures to a stable fingerprint for the loop's no-progress check and
//! the persisted budgets.

mod cc;
mod excerpt;
mod go;
mod js;
mod python;
mod rust;
mod signature;
mod text;

use std::path::Path;

use serde::Serialize;

use super::check::CheckResult;

pub use excerpt::{excerpt, MAX_LINES_AROUND};
pub use signature::{normalize_message, output_signature, signature};

/// At most this many failures are kept: a prompt has no room for more, and the first ones are
/// usually the cause of the rest.
pub const MAX_FAILURES: usize = 200;
/// A message longer than this many bytes is cut (a panic message can hold a whole document).
const MAX_MESSAGE: usize = 4000;

/// One failure a check reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The file it points at, relative to the check's directory when it lies under it.
    pub file: Option<String>,
    /// 1-based.
    pub line: Option<u32>,
    /// 1-based.
    pub column: Option<u32>,
    /// The tool's message; several lines for multi-line messages (an assertion's left and right).
    pub message: String,
    pub kind: FailureKind,
    pub tool: Tool,
    /// The tool's code for it: `E0308`, `TS2322`, `clippy::unwrap_used`, `no-unused-vars`,
    /// `SC2045`, `-Werror=unused-variable`; for tests, the exception type when known.
    pub code: Option<String>,
    /// The failing test's name, for test failures.
    pub test: Option<String>,
}

impl Failure {
    /// A failure with no location, code or test; parsers fill in the rest.
    pub fn new(tool: Tool, kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            file: None,
            line: None,
            column: None,
            message: message.into(),
            kind,
            tool,
            code: None,
            test: None,
        }
    }

    fn at(mut self, file: &str, line: Option<u32>, column: Option<u32>) -> Failure {
        self.file = Some(file.to_owned());
        self.line = line;
        self.column = column;
        self
    }

    fn code(mut self, code: Option<&str>) -> Failure {
        self.code = code.map(str::to_owned);
        self
    }
}

/// What sort of failure it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The code does not parse or build (syntax, unresolved names, linking).
    Compile,
    /// A type checker's error.
    Type,
    /// A linter's finding, or a warning promoted to an error.
    Lint,
    /// A test that failed or errored.
    Test,
    /// Anything else that was reported as an error.
    Other,
}

/// Which tool reported it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// cargo, rustc, clippy and libtest.
    Cargo,
    Tsc,
    Eslint,
    Pytest,
    Unittest,
    Go,
    Gcc,
    Clang,
    /// A `file:line:col: error: message` line from any other tool.
    Generic,
}

/// The failures in a check's log; see the module docs. Empty for a passing check, and for a
/// failing one whose output no parser recognizes (the classifier then reads the log itself).
pub fn extract(command: &[String], result: &CheckResult) -> Vec<Failure> {
    let log = result.log_text();
    let log = text::strip_ansi(&log);
    let hint = detect(command);
    let mut failures = Vec::new();
    failures.extend(rust::parse(&log));
    failures.extend(js::parse_tsc(&log));
    failures.extend(js::parse_eslint(&log));
    failures.extend(python::parse_pytest(&log));
    failures.extend(python::parse_unittest(&log));
    failures.extend(go::parse(&log));
    failures.extend(cc::parse(&log, hint));
    finish(failures, &result.dir)
}

/// Relative paths, cut messages, no duplicates, at most [`MAX_FAILURES`].
fn finish(failures: Vec<Failure>, dir: &Path) -> Vec<Failure> {
    let mut out: Vec<Failure> = Vec::new();
    for mut failure in failures {
        if let Some(file) = &failure.file {
            failure.file = Some(relative(file, dir));
        }
        if failure.message.len() > MAX_MESSAGE {
            let mut end = MAX_MESSAGE;
            while !failure.message.is_char_boundary(end) {
                end -= 1;
            }
            failure.message.truncate(end);
            failure.message.push('…');
        }
        let duplicate = out.iter().any(|f| {
            f.file == failure.file
                && f.line == failure.line
                && f.column == failure.column
                && f.message == failure.message
        });
        if !duplicate {
            out.push(failure);
        }
        if out.len() == MAX_FAILURES {
            break;
        }
    }
    out
}

/// `file` relative to `dir` when it lies under it, without a leading `./`.
fn relative(file: &str, dir: &Path) -> String {
    let path = Path::new(file);
    if path.is_absolute() {
        if let Ok(rest) = path.strip_prefix(dir) {
            return rest.to_string_lossy().into_owned();
        }
    }
    file.strip_prefix("./").unwrap_or(file).to_owned()
}

/// The tool a command runs: the first word in command position that names one. `sh -c "…"`
/// strings are looked into, and wrappers (`env`, `npx`, `uv run`, `python -m`) are seen
/// through; arguments are not commands (`shellcheck -f gcc` is not gcc).
pub fn detect(command: &[String]) -> Option<Tool> {
    let words: Vec<&str> = command.iter().flat_map(|w| w.split_whitespace()).collect();
    let mut expect_command = true;
    for (i, word) in words.iter().enumerate() {
        let name = word.rsplit('/').next().unwrap_or(word);
        if matches!(*word, "&&" | "||" | ";" | "|" | "-c") || word.ends_with(';') {
            expect_command = true;
            continue;
        }
        if *word == "-m" {
            match words.get(i + 1) {
                Some(&"pytest") => return Some(Tool::Pytest),
                Some(&"unittest") => return Some(Tool::Unittest),
                _ => continue,
            }
        }
        if !expect_command {
            continue;
        }
        let tool = match name {
            "cargo" | "rustc" | "cargo-clippy" | "clippy-driver" => Tool::Cargo,
            "tsc" | "vue-tsc" => Tool::Tsc,
            "eslint" => Tool::Eslint,
            "pytest" | "py.test" => Tool::Pytest,
            "go" => Tool::Go,
            "gcc" | "g++" | "cc" | "c++" => Tool::Gcc,
            _ if name.starts_with("gcc-") || name.starts_with("g++-") => Tool::Gcc,
            _ if name.starts_with("clang") => Tool::Clang,
            // Wrappers and assignments keep the next word in command position; `python` keeps
            // it for `-m`, handled above.
            "env" | "npx" | "bunx" | "pnpx" | "exec" | "run" | "time" | "nice" | "uv"
            | "poetry" | "pnpm" | "yarn" | "npm" | "sudo" => continue,
            _ if word.contains('=') && !word.starts_with('-') => continue,
            _ if name.starts_with("python") => continue,
            _ => {
                expect_command = false;
                continue;
            }
        };
        return Some(tool);
    }
    None
}

/// The same cargo command with `--message-format=json` added right after the subcommand, when
/// it is `cargo build|check|test|clippy` (or `b`, `c`, `t`) without a message format; `None`
/// otherwise. The loop runs this form to get exact spans; note that the terminal echo then shows
/// JSON lines for the compiler's part.
pub fn with_message_format_json(command: &[String]) -> Option<Vec<String>> {
    let program = command.first()?;
    if program.rsplit('/').next() != Some("cargo") {
        return None;
    }
    // Toolchain overrides (`+nightly`) and global flags come before the subcommand.
    let sub = command
        .iter()
        .skip(1)
        .position(|w| !w.starts_with('+') && !w.starts_with('-'))?
        + 1;
    if !matches!(
        command[sub].as_str(),
        "build" | "b" | "check" | "c" | "test" | "t" | "clippy"
    ) {
        return None;
    }
    // Arguments after `--` belong to rustc or the test binary.
    let ours = command.iter().take_while(|w| w.as_str() != "--");
    if ours
        .into_iter()
        .any(|w| w == "--message-format" || w.starts_with("--message-format="))
    {
        return None;
    }
    let mut out = command.to_vec();
    out.insert(sub + 1, "--message-format=json".to_owned());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn message_format_is_added_after_the_subcommand() {
        let cases = [
            ("cargo build", Some("cargo build --message-format=json")),
            (
                "cargo +nightly test -p x -- --nocapture",
                Some("cargo +nightly test --message-format=json -p x -- --nocapture"),
            ),
            (
                "cargo clippy -- -D warnings",
                Some("cargo clippy --message-format=json -- -D warnings"),
            ),
            (
                "/usr/bin/cargo c",
                Some("/usr/bin/cargo c --message-format=json"),
            ),
            ("cargo build --message-format=short", None),
            ("cargo build --message-format json", None),
            ("cargo fmt --check", None),
            ("cargo run", None),
            ("make test", None),
            ("cargo", None),
        ];
        for (command, expected) in cases {
            let got = with_message_format_json(&words(command)).map(|w| w.join(" "));
            assert_eq!(got.as_deref(), expected, "{command}");
        }
    }

    #[test]
    fn tools_are_detected_from_the_command() {
        let cases = [
            ("cargo test", Some(Tool::Cargo)),
            ("npx tsc -p .", Some(Tool::Tsc)),
            ("python3 -m pytest -q", Some(Tool::Pytest)),
            ("python -m unittest discover", Some(Tool::Unittest)),
            ("sh -c go\u{20}test\u{20}./...", Some(Tool::Go)),
            ("/usr/bin/clang-14 -c a.c", Some(Tool::Clang)),
            ("cc -c a.c", Some(Tool::Gcc)),
            ("env CC=clang make", None),
            ("RUSTFLAGS=-Dwarnings cargo build", Some(Tool::Cargo)),
            ("shellcheck -f gcc a.sh", None),
            ("make && ./run-tests", None),
            ("make", None),
        ];
        for (command, expected) in cases {
            assert_eq!(detect(&words(command)), expected, "{command}");
        }
    }

    #[test]
    fn paths_under_the_directory_become_relative() {
        let dir = Path::new("/tmp/project");
        assert_eq!(relative("/tmp/project/src/a.rs", dir), "src/a.rs");
        assert_eq!(relative("./main.go", dir), "main.go");
        assert_eq!(
            relative("/usr/include/stdio.h", dir),
            "/usr/include/stdio.h"
        );
    }
}
