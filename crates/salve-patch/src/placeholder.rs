//! Placeholder lines: the lines a model writes to stand for code it left out (`...`,
//! `// ... existing code ...`, `# rest of the file unchanged`, `[...]`), told apart from code and
//! from prose that only mentions such words.
//!
//! A leaf that both halves of the crate ask: the readers, to refuse a lazy edit and to keep a
//! whole file's gap lines for the applier; the ladder, to cut a pattern at its elision markers
//! (the elision rung) and to fill a whole file's gaps from the file. One answer for both, so a
//! line the reader keeps as a gap is a line the applier fills.

use crate::text::Trim as _;
use crate::text::{canonical, is_blank};

/// Comment openers, longest first so that `<!--` wins over `<`-less ones.
/// `.. ` opens a reStructuredText comment (`.. existing code`); `...` does not start with it.
const COMMENT_OPENERS: &[&str] = &["<!--", "{/*", ".. ", "/*", "//", "--", "#", ";", "%", "*"];
/// Comment closers stripped from the end of a comment-only line.
const COMMENT_CLOSERS: &[&str] = &["-->", "*/}", "*/"];

/// Words that, next to dots or inside brackets, say "the real code was left out".
const LAZY_WORDS: &[&str] = &[
    "existing",
    "unchanged",
    "rest",
    "remaining",
    "remainder",
    "omitted",
    "as before",
    "previous code",
    "other code",
    "more code",
    "code here",
];

/// How an unmarked placeholder comment begins: `// rest of the file unchanged`,
/// `# existing code`, `// remaining methods stay the same`.
const LAZY_STARTS: &[&str] = &[
    "existing",
    "rest",
    "the rest",
    "remaining",
    "remainder",
    "keep the rest",
    "same as before",
    "other",
    "previous",
    "more",
    "everything else",
    "unchanged",
];

/// What an unmarked placeholder comment is about: code, not the program's data.
const CODE_NOUNS: &[&str] = &[
    "code",
    "file",
    "function",
    "functions",
    "method",
    "methods",
    "class",
    "implementation",
    "module",
    "content",
    "contents",
    "document",
    "body",
    "lines",
    "imports",
    "tests",
    "logic",
    "unchanged",
    "same",
    "before",
    "omitted",
    "brevity",
];

/// A placeholder is short: a sentence of prose is a comment, whatever words it uses.
const MAX_PLACEHOLDER_WORDS: usize = 10;

/// An unmarked placeholder longer than a noun phrase (`// rest of the code`) says what became
/// of the code it stands for: it stays the same, goes here, was omitted. Without such a word a
/// longer comment is a sentence about the code (`// The rest of this function executes in the
/// child process.`).
const KEEP_WORDS: &[&str] = &[
    "unchanged",
    "same",
    "before",
    "omitted",
    "brevity",
    "untouched",
    "unmodified",
    "here",
    "elided",
    "skipped",
    "identical",
    "remains",
    "remain",
    "stays",
    "stay",
    "kept",
];

/// Words an unmarked placeholder without a [`KEEP_WORDS`] word may have.
const MAX_BARE_PLACEHOLDER_WORDS: usize = 5;

/// The text of a comment-only line without its comment markers, or `None` when the line is not
/// a comment.
fn comment_body(trimmed: &str) -> Option<&str> {
    let opener = COMMENT_OPENERS.iter().find(|o| trimmed.starts_with(**o))?;
    let mut inner = trimmed.get(opener.len()..).unwrap_or("");
    for closer in COMMENT_CLOSERS {
        if let Some(x) = inner.trim_end_ws().strip_suffix(closer) {
            inner = x;
            break;
        }
    }
    Some(inner.trim_ws())
}

fn starts_with_dots(s: &str) -> bool {
    s.starts_with("...") || s.starts_with('…')
}

fn ends_with_dots(s: &str) -> bool {
    s.ends_with("...") || s.ends_with('…')
}

/// True when `s` is nothing but dots (`...`, `…`, `. . .`) and spaces.
fn only_dots(s: &str) -> bool {
    !s.is_empty()
        && (s.contains("...") || s.contains('…'))
        && s.chars().all(|c| c == '.' || c == '…' || c.is_whitespace())
}

/// A placeholder that stands in for code: `// ... existing code ...`, `# ... rest unchanged`,
/// `/* ... */ rest of file`, `... (unchanged)`, `<!-- ... existing content ... -->`,
/// `[rest of file unchanged]`, `// rest of the code remains unchanged`.
///
/// The line must be *only* an elision marker. Prose that merely contains such a word (a C
/// comment saying a value is left "unchanged", `// process the rest of the buffer`) is code's
/// own comment, and refusing a clean edit over it is a false alarm. So a placeholder is short
/// and either marked (dots or brackets around a lazy word) or a comment that opens with a lazy
/// phrase about code.
pub(crate) fn is_lazy(line: &str) -> bool {
    let t = line.trim_ws();
    if t.is_empty() || t.len() > 120 {
        return false;
    }
    let (inner, commented) = match comment_body(t) {
        Some(c) => (c, true),
        None => (t, false),
    };
    let (body, bracketed) = strip_brackets(inner);
    let dotted = starts_with_dots(body) || ends_with_dots(body);
    // Most lines are code: settle them before any allocation.
    if !commented && !dotted && !bracketed {
        return false;
    }
    let raw: Vec<&str> = body
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    // A comment line of prose has too many words: settled before lowercasing each.
    if raw.is_empty() || raw.len() > MAX_PLACEHOLDER_WORDS {
        return false;
    }
    let words: Vec<String> = raw.iter().map(|w| w.to_lowercase()).collect();
    // Outside a comment only a line of words, dots and brackets can be a marker: `...rest,`
    // is JavaScript spread syntax, `(unchanged)` alone is not code.
    let wordy = body
        .chars()
        .all(|c| c.is_alphanumeric() || c.is_whitespace() || "'.…-:()[]".contains(c));
    if !commented && !(wordy && (dotted || bracketed)) {
        return false;
    }
    let text = words.join(" ");
    let has = |w: &str| {
        if w.contains(' ') {
            text.contains(w)
        } else {
            words.iter().any(|x| x == w)
        }
    };
    if dotted || bracketed {
        return LAZY_WORDS.iter().any(|w| has(w));
    }
    let starts = LAZY_STARTS
        .iter()
        .any(|p| text == *p || text.strip_prefix(p).is_some_and(|r| r.starts_with(' ')));
    let says_kept = || words.iter().any(|w| KEEP_WORDS.contains(&w.as_str()));
    starts
        && opens_a_phrase(body)
        && words.len() >= 2
        && words.iter().any(|w| CODE_NOUNS.contains(&w.as_str()))
        && (words.len() <= MAX_BARE_PLACEHOLDER_WORDS || says_kept())
}

/// Whether the comment `body` opens with one of [`LAZY_STARTS`] as a phrase of its own: the start
/// is followed by a space, not by the punctuation that ends a sentence (`other. This module
/// ...` is prose that wrapped, not a placeholder).
fn opens_a_phrase(body: &str) -> bool {
    let raw: Vec<String> = body.split_whitespace().map(str::to_lowercase).collect();
    LAZY_STARTS.iter().any(|p| {
        let start: Vec<&str> = p.split(' ').collect();
        raw.len() >= start.len() && raw.iter().zip(&start).all(|(r, s)| r == s)
    })
}

/// Whether a placeholder says in words that everything after it is the file as it stands:
/// `# ... rest of the file unchanged ...`, `... (rest unchanged) ...`, `[rest of file
/// unchanged]`, `# ... remaining code stays the same ...`. Only such a line may end whole-file
/// content and be filled with the rest of the file; a bare `...` or `// rest of file` says the
/// content stops, not that the rest is kept.
pub(crate) fn says_rest_unchanged(line: &str) -> bool {
    if !is_lazy(line) {
        return false;
    }
    let text = line.to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &&str| words.contains(w);
    let rest = ["rest", "remaining", "remainder"].iter().any(has);
    let kept = ["unchanged", "same", "untouched"].iter().any(has)
        || text.contains("as before")
        || text.contains("as is");
    rest && kept
}

/// Longest sentence read as saying the rest of a file is unchanged, in words.
const MAX_REST_SENTENCE_WORDS: usize = 30;

/// Whether a prose line beside a whole-file block says the rest of the file is unchanged ("The
/// rest of the file is unchanged.", "Everything else stays the same."): it names what is left
/// (`rest`, `remaining`, `remainder`, `everything else`) and says it is kept (`unchanged`,
/// `same`, `untouched`, `as before`, `as is`). Such a sentence makes content that stops early a
/// head to fill in from the file (see `locate::whole::cut`), never a file to write as it is.
pub(crate) fn says_rest_unchanged_in_prose(line: &str) -> bool {
    let text = line.to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.len() > MAX_REST_SENTENCE_WORDS {
        return false;
    }
    let has = |w: &&str| words.contains(w);
    let rest =
        ["rest", "remaining", "remainder"].iter().any(has) || text.contains("everything else");
    let kept = ["unchanged", "same", "untouched", "unmodified"]
        .iter()
        .any(has)
        || text.contains("as before")
        || text.contains("as is")
        || text.contains("as-is");
    rest && kept
}

/// `inner` without one pair of enclosing brackets (`[...]`, `(...)`, `{...}`, `<...>`), and
/// whether there were any.
fn strip_brackets(inner: &str) -> (&str, bool) {
    for (open, close) in [('[', ']'), ('(', ')'), ('{', '}'), ('<', '>')] {
        if let Some(x) = inner.strip_prefix(open).and_then(|x| x.strip_suffix(close)) {
            return (x.trim_ws(), true);
        }
    }
    (inner, false)
}

/// A comment-only line whose text is only dots: `// ...`, `# ...`, `/* ... */`.
pub(crate) fn is_comment_dots(line: &str) -> bool {
    comment_body(line.trim_ws()).is_some_and(only_dots)
}

/// A line that elides unchanged code: bare dots, a comment of dots, or a lazy placeholder.
pub(crate) fn is_elision(line: &str) -> bool {
    let t = line.trim_ws();
    only_dots(t) || is_comment_dots(t) || is_lazy(t)
}

/// True for a line that, written into a file, would stand in for code that is not there.
/// `lang_allows_dots` is true where a bare `...` line is itself code (Python's Ellipsis).
pub(crate) fn is_placeholder_content(line: &str, lang_allows_dots: bool) -> bool {
    is_lazy(line) || is_comment_dots(line) || (!lang_allows_dots && only_dots(line.trim_ws()))
}

/// Whether a bare `...` line is ordinary content in the file at `path`: Python's Ellipsis
/// statement. In prose files it is rare enough, and replacing a whole file with a stand-in costly
/// enough, that it counts as a placeholder there.
pub(crate) fn dots_are_content(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".py", ".pyi"].iter().any(|ext| lower.ends_with(ext))
}

/// Whether a line is an elision marker: an optional comment leader, then `...` (or `…`),
/// optionally with a few words such as `existing code` and closing dots; or a placeholder in
/// words only (`# (unchanged)`, `// rest of the code unchanged`), which cuts a pattern the same
/// way. Prose that merely mentions such words is no marker (see [`is_lazy`]).
pub(crate) fn is_marker(line: &str) -> bool {
    marker_parts(line).is_some() || is_lazy(line)
}

/// The parts of an elision marker: whether it sits in a comment, and the text after its opening
/// dots (closing comment marks and surrounding spaces removed). `None` for other lines.
pub(crate) fn marker_parts(line: &str) -> Option<(bool, String)> {
    let c = canonical(line);
    let mut t: &str = c.trim_ws();
    let mut commented = false;
    for lead in ["<!--", "//", "/*", "--", "#", ";", "*", "%", "\""] {
        if let Some(rest) = t.strip_prefix(lead) {
            t = rest.trim_start_ws();
            commented = true;
            break;
        }
    }
    for tail in ["-->", "*/"] {
        if let Some(rest) = t.strip_suffix(tail) {
            t = rest.trim_end_ws();
        }
    }
    let (t, bracketed) = unbracket(t);
    let rest = t.strip_prefix("...")?;
    if spread(rest, commented, bracketed) {
        return None;
    }
    rest.chars()
        .all(|ch| ch.is_alphanumeric() || " .,:;'()-_".contains(ch))
        .then(|| (commented, rest.to_string()))
}

/// The inside of an elision written in brackets, as quotations mark a cut (`[...]`, `[…]`,
/// `[... existing code ...]`); other text as it is. Only a bracket pair around the whole line
/// counts, so `f([...])` keeps its brackets and is no marker; the caller refuses words glued to
/// the dots (`[...items]`, spread syntax). Also says whether brackets were taken off.
fn unbracket(t: &str) -> (&str, bool) {
    match t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        Some(inner) if !inner.contains(['[', ']']) => (inner.trim_ws(), true),
        _ => (t, false),
    }
}

/// Whether dots glued to a name are spread syntax (`...options`, `...json,`, `[...items]`)
/// rather than a cut: outside a comment, a marker's dots stand alone or before a space.
fn spread(rest: &str, commented: bool, bracketed: bool) -> bool {
    let glued = rest
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
    glued && (!commented || bracketed)
}

/// Whether a line of whole-file content stands for unchanged file lines: dots, alone or in a
/// comment, optionally followed by a space and a few words (`...`, `…`, `// ...`, `/* ... */`,
/// `# ... existing code ...`). Dots glued to a word (`...rest,`) are JavaScript spread syntax, and
/// where a bare `...` is code (`dots_are_code`, Python's Ellipsis) it is content too.
pub(crate) fn is_gap(line: &str, dots_are_code: bool) -> bool {
    let Some((commented, rest)) = marker_parts(line) else {
        return false;
    };
    let words = rest.trim_start_matches('.');
    if words.trim_ws().is_empty() {
        return commented || !dots_are_code;
    }
    words.starts_with(' ')
}

/// Whether line `i` of whole-file content is a gap: [`is_gap`], or a placeholder in words
/// (`// rest of the code remains unchanged`, `[rest of file unchanged]`) with content of its own
/// on both sides. Between two kept stretches such a line can only stand for the file lines
/// between them, and is filled by the same strict rules as `...`. After the last kept stretch,
/// one that says the rest is unchanged is a gap filled with the rest of the file; at the head,
/// or ending the content in other words, it says the file was cut short, which the parser
/// refuses as lazy.
pub(crate) fn is_gap_at(lines: &[&str], i: usize, dots_are_code: bool) -> bool {
    let line = lines[i];
    if is_gap(line, dots_are_code) {
        return true;
    }
    let kept = |l: &&str| !is_blank(l) && !is_gap(l, dots_are_code);
    is_lazy(line)
        && lines[..i].iter().any(kept)
        && (lines[i + 1..].iter().any(kept) || says_rest(&lines[i + 1..], line))
}

/// Whether `line`, followed only by `after`, is a placeholder for the rest of the file: it
/// says so in words and nothing but blank lines follows it.
pub(crate) fn says_rest(after: &[&str], line: &str) -> bool {
    after.iter().all(|l| is_blank(l)) && says_rest_unchanged(line)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn lazy_placeholders_are_recognised() {
        for l in [
            "// ... existing code ...",
            "    # ... rest unchanged",
            "/* ... */ rest of file",
            "... (unchanged)",
            "<!-- ... existing content ... -->",
            "// rest of the file unchanged",
            "  // ... rest unchanged ...",
            "<!-- ... rest ... -->",
            "[rest of file unchanged]",
            "    (rest unchanged)",
            "... (rest of the document unchanged) ...",
            "// rest of the code remains unchanged",
            "# existing code",
            "(unchanged)",
            "// ... existing methods ...",
            "// the rest of the implementation goes here",
            "// rest of the methods stay the same as before",
        ] {
            assert!(is_lazy(l), "{l}");
        }
    }

    #[test]
    fn ordinary_comments_are_not_lazy() {
        for l in [
            "// Keep existing behaviour for old configs",
            "let rest = existing.iter();",
            "# unchanged",
            "...",
            "// ...",
            "",
            "// Process the rest of the buffer",
            "** The cursor is left unchanged when the seek fails, so that callers can retry.",
            "/* The value is left unchanged */",
            "# Continue to return the rest of the raw data",
            "...rest,",
            "...existing,",
            "//! other. This module contains two basic abstractions for doing so:",
            "# Rest: the module keeps its code",
            "    // The rest of this function executes in the child process.",
        ] {
            assert!(!is_lazy(l), "{l}");
        }
    }

    #[test]
    fn elisions_include_bare_dots() {
        assert!(is_elision("..."));
        assert!(is_elision("    // ..."));
        assert!(is_elision("# ..."));
        assert!(is_elision("// ... existing code ..."));
        assert!(!is_elision("foo(...)"));
        assert!(!is_elision("let x = 1;"));
    }

    #[test]
    fn placeholder_content_respects_language() {
        assert!(is_placeholder_content("    ...", false));
        assert!(!is_placeholder_content("    ...", true));
        assert!(is_placeholder_content("// ...", true));
        assert!(dots_are_content("a/b.py"));
        assert!(!dots_are_content("a/b.rs"));
    }
}
