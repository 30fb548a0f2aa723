//! Whether an edit introduced syntax errors: the last line of defence before salve writes a file.
//!
//! A placement can be right line by line and still leave code that does not parse: added lines
//! at the wrong depth break Python, a curly quote copied into a string breaks JavaScript. Such a
//! file should not be written; the model that wrote the edit can fix it in one round trip when
//! it is told where the error is. This crate answers one question: given a path and the text
//! before and after an edit, did the edit introduce a syntax error, and where is the first one?
//!
//! The rules:
//! - The language is chosen by the file's extension ([`Language::for_path`]): Python,
//!   JavaScript (and JSX), TypeScript, TSX, Rust, Go, C, C++ and Java, with the tree-sitter
//!   grammars; JSON (Jupyter notebooks included), YAML and TOML with their own parsers
//!   (issue 23 §9). Any other file is not checked.
//! - Only a file that parsed cleanly before and has errors after is judged
//!   ([`Verdict::Introduced`]). A file that already had errors (a grammar gap, a template, code
//!   mid-refactor) is not judged: the parser's view of it cannot be trusted, and the edit did not
//!   make it worse in a way this check can tell.
//! - C and C++ errors that go away once the preprocessor's conditional lines are set aside
//!   are not judged ([`Unchecked::Conditionals`]): braces split across `#ifdef` branches are
//!   valid C that the grammar cannot follow.
//! - Cost: for Python, the statements around the edit are parsed first, alone ([`check_window`]):
//!   when they are clean, so is the file, and a one-line edit costs about the same in a file of
//!   any length. Otherwise, and for the other languages, the text after the edit is parsed
//!   first; the text before is parsed only when the after text has errors, so an edit that
//!   keeps the file clean costs one parse.
//! - Size cap: texts longer than [`MAX_CHECKED_BYTES`] (512 KiB) are not checked. tree-sitter
//!   reads C or Rust at about 3 to 4 MB/s and Python at about 1 to 2 MB/s on a busy 2-core
//!   machine: a typical source file of 20 KB costs 5 to 20 ms, a 944 KB Python file about
//!   0.8 s, and the 9.6 MB `sqlite3.c` amalgamation about 3 s (twice that when it has errors and
//!   the text before must be parsed too), against 35 ms for placing a thousand hunks in it.
//!   Files that large are generated or amalgamated, rarely written by a model. An incremental
//!   re-parse would not help: the first parse of the text is the cost.
//!
//! ```
//! use std::path::Path;
//! use salve_syntax::{check, Verdict};
//!
//! let before = "def f():\n    return 1\n";
//! // The added line sits one level too deep: Python cannot parse it.
//! let after = "def f():\n    x = 2\n        return x\n";
//! match check(Path::new("app.py"), before, after) {
//!     Verdict::Introduced(error) => {
//!         assert_eq!(error.line, 3);
//!         println!("{error}");
//!     }
//!     other => panic!("expected a syntax error, got {other:?}"),
//! }
//! // A clean edit passes; a file type without a grammar is not checked.
//! assert_eq!(check(Path::new("app.py"), before, "def f():\n    return 2\n"), Verdict::Clean);
//! assert!(matches!(check(Path::new("notes.txt"), "a", "b ("), Verdict::Unchecked(_)));
//! ```

#![deny(missing_docs)]

mod data;
mod language;
mod parse;
mod pylex;
mod reuse;
mod rules;
mod window;

use std::fmt;
use std::path::Path;

pub use language::Language;
pub use parse::{first_error, NoTree};
pub use window::{check_window, Fallback};

/// Source texts longer than this many bytes (512 KiB) are not checked: see the module docs.
/// Data files have caps of their own ([`Language::max_checked_bytes`]).
pub const MAX_CHECKED_BYTES: usize = 512 * 1024;

/// The answer of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The file was not parsed, for the reason given.
    Unchecked(Unchecked),
    /// The text after the edit parses without errors; or, for Python, the statements around
    /// the edit parse and the rest of the file is unchanged ([`check_window`]), which proves
    /// the edit introduced no error even when the file had one elsewhere before.
    Clean,
    /// The text after the edit has errors, and so had the text before: not judged.
    AlreadyBroken,
    /// The text before parsed cleanly and the text after does not: the edit introduced this
    /// error (the first one in the file).
    Introduced(SyntaxError),
}

/// Why a file was not checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unchecked {
    /// No grammar is known for the file's extension.
    UnknownLanguage,
    /// The text is longer than [`MAX_CHECKED_BYTES`].
    TooLarge,
    /// The parser gave no tree (it could not be set up for the grammar).
    ParserFailed,
    /// C or C++ whose errors go away when the preprocessor's conditional lines (`#if`,
    /// `#ifdef`, `#else`, `#endif`, ...) are set aside: the grammar cannot follow a brace opened
    /// in one conditional and closed in another (`extern "C" {` under `#ifdef __cplusplus`), which
    /// compilers accept, so such an error is not judged.
    Conditionals,
}

/// What kind of syntax error was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Text the grammar cannot place here; holds the first token of it.
    Unexpected(String),
    /// A token the grammar needs here is absent (a closing bracket, a colon); holds its name.
    Missing(String),
    /// Python's indentation rules are broken here; says how, quoting the line.
    Indentation(String),
    /// A data file (JSON, YAML, TOML) its format's parser refuses here; holds the parser's
    /// message.
    Invalid(String),
}

/// The first syntax error of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// The grammar that found it.
    pub language: Language,
    /// 1-based line in the text.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong there.
    pub kind: ErrorKind,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} syntax error at line {}, column {}: ",
            self.language.name(),
            self.line,
            self.column
        )?;
        match &self.kind {
            ErrorKind::Unexpected(token) if token.is_empty() => write!(f, "unexpected text"),
            ErrorKind::Unexpected(token) => write!(f, "unexpected `{token}`"),
            ErrorKind::Missing(token) => write!(f, "missing `{token}`"),
            ErrorKind::Indentation(why) | ErrorKind::Invalid(why) => write!(f, "{why}"),
        }
    }
}

/// For C and C++: whether `text` parses cleanly once its conditional directive lines are
/// blanked (kept as empty lines, so nothing else moves).
fn conditionals_explain(language: Language, text: &str) -> bool {
    if !matches!(language, Language::C | Language::Cpp) {
        return false;
    }
    let is_conditional = |line: &str| {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            return false;
        };
        let word: String = rest
            .trim_start()
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        matches!(
            word.as_str(),
            "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef" | "else" | "endif"
        )
    };
    let blanked: String = text
        .split_inclusive('\n')
        .map(|line| {
            if is_conditional(line) {
                if line.ends_with('\n') {
                    "\n"
                } else {
                    ""
                }
            } else {
                line
            }
        })
        .collect();
    matches!(first_error(language, &blanked), Ok(None))
}

/// Whether the edit of the file at `path` from `before` to `after` introduced a syntax error.
/// See the module docs for the rules.
pub fn check(path: &Path, before: &str, after: &str) -> Verdict {
    let Some(language) = Language::for_path(path) else {
        return Verdict::Unchecked(Unchecked::UnknownLanguage);
    };
    let cap = language.max_checked_bytes();
    if after.len() > cap || before.len() > cap {
        return Verdict::Unchecked(Unchecked::TooLarge);
    }
    if check_window(language, before, after).is_ok() {
        return Verdict::Clean;
    }
    let error = match parse::first_error_after(language, before, after) {
        Err(NoTree) => return Verdict::Unchecked(Unchecked::ParserFailed),
        Ok(None) => return Verdict::Clean,
        Ok(Some(error)) => error,
    };
    match first_error(language, before) {
        Ok(None) if conditionals_explain(language, after) => {
            Verdict::Unchecked(Unchecked::Conditionals)
        }
        Ok(None) => Verdict::Introduced(error),
        Ok(Some(_)) => Verdict::AlreadyBroken,
        Err(NoTree) => Verdict::Unchecked(Unchecked::ParserFailed),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod cut_tests {
    use super::*;

    #[test]
    fn a_file_cut_inside_a_function_is_introduced_by_its_missing_brace() {
        let full = "export class Store {\n  private items: Map<string, number> = new Map();\n\n  get(key: string): number | undefined {\n    return this.items.get(key);\n  }\n\n  set(key: string, value: number): void {\n    if (value < 0) {\n      throw new Error(\"negative\");\n    }\n    this.items.set(key, value);\n  }\n}\n";
        for cut in 1..full.lines().count() {
            let text: String = full.lines().take(cut).map(|l| format!("{l}\n")).collect();
            let v = check(Path::new("src/store.ts"), full, &text);
            assert!(
                matches!(v, Verdict::Introduced(_)),
                "cut at {cut}: {v:?}\n{text}"
            );
        }
    }
}
