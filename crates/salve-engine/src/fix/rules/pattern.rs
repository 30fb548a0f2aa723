//! What a rule matches: a failure's kind, tool, code and normalized message.

use serde::{Deserialize, Serialize};

/// A failure as rules see it. The check runner's failures are converted into this by the loop;
/// [`FailurePattern::new`] normalizes the message so that the same failure matches again after
/// the code around it moved.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FailurePattern {
    /// The failure's kind as the classifier names it (`type_error`, `test_assertion`, `lint`...).
    pub kind: String,
    /// The tool that reported it (`rustc`, `tsc`, `pytest`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool's own code for it (`E0308`, `TS2322`, `F401`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The message, normalized by [`normalize`].
    pub message: String,
}

impl FailurePattern {
    /// A pattern from a failure; `message` is normalized here.
    pub fn new(
        kind: impl Into<String>,
        tool: Option<String>,
        code: Option<String>,
        message: &str,
    ) -> FailurePattern {
        FailurePattern {
            kind: kind.into(),
            tool,
            code,
            message: normalize(message),
        }
    }

    /// Does a rule with this pattern apply to `failure`? Kind and message must be equal; a tool
    /// or code the rule names must be the failure's too (a rule without one matches any).
    pub fn matches(&self, failure: &FailurePattern) -> bool {
        self.kind == failure.kind
            && self.message == failure.message
            && self
                .tool
                .as_ref()
                .is_none_or(|t| failure.tool.as_ref() == Some(t))
            && self
                .code
                .as_ref()
                .is_none_or(|c| failure.code.as_ref() == Some(c))
    }

    /// How much the pattern pins down: a rule naming tool and code is preferred to one that
    /// does not.
    pub(crate) fn specificity(&self) -> u8 {
        u8::from(self.tool.is_some()) + u8::from(self.code.is_some())
    }
}

/// A message with what changes between two occurrences of the same failure taken out:
/// - terminal colour codes removed;
/// - paths (a word with `/` or `\`, or a file name with an extension, with its `:line:col`)
///   become `<path>`;
/// - numbers standing alone (`12`, `3.5`, `0x7ffd`; not the `32` of `u32` or the `0308` of
///   `E0308`) become `N`;
/// - runs of whitespace become one space, and the ends are trimmed.
///
/// Quoted text is kept (less its numbers and paths): it names the types and symbols the
/// failure is about, which decide whether an old repair still fits.
pub fn normalize(message: &str) -> String {
    let plain = strip_ansi(message);
    let words: Vec<String> = plain.split_whitespace().map(normalize_word).collect();
    words.join(" ")
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

const QUOTES: &[char] = &[
    '`', '\'', '"', '(', ')', '[', ']', ',', ';', '<', '>', '{', '}',
];

fn normalize_word(word: &str) -> String {
    // Keep the punctuation around a word (quotes, brackets) so `'src/a.rs'` stays quoted.
    let start = word.len() - word.trim_start_matches(QUOTES).len();
    let end = word.trim_end_matches(QUOTES).len().max(start);
    let (pre, core, post) = (&word[..start], &word[start..end], &word[end..]);
    let core = if is_path(core) {
        "<path>".to_owned()
    } else {
        numbers(core)
    };
    format!("{pre}{core}{post}")
}

fn is_path(word: &str) -> bool {
    if word.len() < 2 || word.starts_with("::") {
        return false;
    }
    let has_sep =
        (word.contains('/') && word.chars().any(char::is_alphanumeric)) || word.contains('\\');
    // `lib.rs`, `test_x.py:12:3`: a name, a dot, a short extension, maybe `:line:col`.
    let file = word.split(':').next().unwrap_or(word);
    let named_file = file.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=4).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_lowercase())
            && stem
                .chars()
                .all(|c| c.is_alphanumeric() || "_-.".contains(c))
            && KNOWN_EXTENSIONS.contains(&ext)
    });
    has_sep || named_file
}

const KNOWN_EXTENSIONS: &[&str] = &[
    "rs", "py", "ts", "tsx", "js", "jsx", "mjs", "go", "c", "h", "cc", "cpp", "hpp", "java", "rb",
    "toml", "json", "yml", "yaml", "cfg", "ini",
];

/// Standalone numbers (decimal, with a fraction, or hex) become `N`; digits inside an
/// identifier stay.
fn numbers(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let chars: Vec<char> = word.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let after_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c.is_ascii_digit() && !after_ident {
            let hex = c == '0' && chars.get(i + 1) == Some(&'x');
            i += if hex { 2 } else { 1 };
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (hex && chars[i].is_ascii_hexdigit())
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            out.push('N');
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}
