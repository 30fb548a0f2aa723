//! Data files (issue 23 §9): JSON (Jupyter notebooks included), YAML and TOML, read by their
//! own pure-Rust parsers rather than tree-sitter grammars. An edit that places cleanly can still
//! break one: a notebook's cell code is a JSON string, so a line added inside it is a raw
//! newline and a quote is unescaped; a YAML block re-indented from another level width puts a
//! key between two levels. These parsers are strict, as the tools that load the files are, so a
//! file they read before the edit and not after is one the edit broke.
//!
//! Cost: serde_json checks without building values (hundreds of MB/s); YAML is read as a stream
//! of parser events, never built into a document; TOML is built, as its parser only offers that,
//! but TOML files are small.

use serde::de::IgnoredAny;

use crate::{ErrorKind, Language, SyntaxError};

/// The first error of `text` read as the data `language`: `None` when `language` is no data
/// format (a tree-sitter grammar reads it), `Some(None)` when the text is valid.
pub(crate) fn first_error(language: Language, text: &str) -> Option<Option<SyntaxError>> {
    let found = match language {
        Language::Json | Language::Notebook => json(text),
        Language::Yaml => yaml(text),
        Language::Toml => toml(text),
        _ => return None,
    };
    Some(found.map(|(line, column, message)| SyntaxError {
        language,
        line,
        column,
        kind: ErrorKind::Invalid(if language == Language::Notebook {
            format!(
                "{message} (a cell's code is a JSON string in the notebook: edit the file's own \
                 lines, with newlines written `\\n` and quotes `\\\"`)"
            )
        } else {
            message
        }),
    }))
}

/// (1-based line, 1-based column in characters, message) of the first error.
type Found = Option<(usize, usize, String)>;

fn json(text: &str) -> Found {
    let err = serde_json::from_str::<IgnoredAny>(text).err()?;
    let message = err.to_string();
    // serde_json appends " at line L column C"; the position is reported on its own.
    let message = match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    };
    Some((err.line().max(1), err.column().max(1), message))
}

fn yaml(text: &str) -> Found {
    let mut parser = yaml_rust2::parser::Parser::new_from_str(text);
    loop {
        match parser.next_token() {
            Ok((yaml_rust2::Event::StreamEnd, _)) => return None,
            Ok(_) => {}
            Err(err) => {
                let (line, column) = position(text, err.marker().index());
                return Some((line, column, err.info().to_owned()));
            }
        }
    }
}

fn toml(text: &str) -> Found {
    let err = text.parse::<toml::Table>().err()?;
    let at = err.span().map_or(0, |s| s.start);
    let (line, column) = position(text, at);
    let message = err.message().trim().to_owned();
    Some((line, column, message))
}

/// 1-based line and character column of byte `at` (clamped to the text, and to a character
/// boundary before it).
fn position(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        assert_eq!(position("ab\ncé\nx", 0), (1, 1));
        assert_eq!(position("ab\ncé\nx", 3), (2, 1));
        assert_eq!(position("ab\ncé\nx", 6), (2, 3));
        assert_eq!(position("ab\ncé\nx", 99), (3, 2));
    }

    #[test]
    fn each_format_reports_its_first_error() {
        assert_eq!(json("{\"a\": [1, 2]}\n"), None);
        let (line, _, message) = json("{\n  \"a\": \"x\ny\"\n}\n").unwrap();
        assert_eq!(line, 2, "{message}");
        assert_eq!(yaml("a:\n  b: 1\n  c: [1, 2]\n"), None);
        let (line, _, _) = yaml("steps:\n  - uses: x\n   with:\n     y: 1\n").unwrap();
        assert_eq!(line, 3);
        assert_eq!(toml("[a]\nb = 1\n"), None);
        let (line, _, _) = toml("[a]\nb = 1\nc = \"x\n").unwrap();
        assert_eq!(line, 3);
    }
}
