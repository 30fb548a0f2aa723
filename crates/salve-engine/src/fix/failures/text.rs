//! Small text helpers the parsers share; no regex, so the engine stays light to build.

use std::borrow::Cow;

/// The text without ANSI escape sequences: colored tools (`tsc --pretty`, cargo with
/// `CARGO_TERM_COLOR=always`) parse like plain ones.
pub(super) fn strip_ansi(s: &str) -> Cow<'_, str> {
    if !s.contains('\u{1b}') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates up to a final byte in @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC (hyperlinks): up to BEL or ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// A `file:line[:column]` location at the start of `s`, and what follows it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Location<'a> {
    pub file: &'a str,
    pub line: u32,
    pub column: Option<u32>,
    /// The text after the location and its colon, trimmed at the start.
    pub rest: &'a str,
}

/// Parse `file:line:col: rest`, `file:line: rest`, `file:line:col` or `file:line`. The file may
/// hold colons itself; the first `:digits` that ends the location wins. `None` when the file
/// part is empty or starts with whitespace, so indented text is not mistaken for a location.
pub(super) fn location(s: &str) -> Option<Location<'_>> {
    if s.starts_with(char::is_whitespace) {
        return None;
    }
    let mut from = 0;
    while let Some(i) = s[from..].find(':').map(|i| i + from) {
        let file = &s[..i];
        if let Some((line, after)) = number(&s[i + 1..]) {
            if !file.is_empty() && (after.is_empty() || after.starts_with(':')) {
                let after = after.strip_prefix(':').unwrap_or(after);
                let (column, rest) = match number(after) {
                    Some((c, r)) if r.is_empty() || r.starts_with(':') => {
                        (Some(c), r.strip_prefix(':').unwrap_or(r))
                    }
                    _ => (None, after),
                };
                return Some(Location {
                    file,
                    line,
                    column,
                    rest: rest.trim_start(),
                });
            }
        }
        from = i + 1;
    }
    None
}

/// Leading ASCII digits as a number, and the rest.
pub(super) fn number(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// A trailing ` [code]` split off a message: `("msg", Some("code"))`.
pub(super) fn trailing_code(message: &str) -> (&str, Option<&str>) {
    let message = message.trim_end();
    if let Some(inner) = message.strip_suffix(']') {
        if let Some(open) = inner.rfind(" [") {
            let code = &inner[open + 2..];
            if !code.is_empty() && !code.contains(' ') {
                return (inner[..open].trim_end(), Some(code));
            }
        }
    }
    (message, None)
}

/// Lines joined with `\n`, each trimmed at the end, surrounding blank lines dropped.
pub(super) fn join_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let joined: Vec<&str> = lines.into_iter().map(str::trim_end).collect();
    joined.join("\n").trim_matches('\n').to_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ansi_sequences_are_removed() {
        let s = "\u{1b}[96msrc/a.ts\u{1b}[0m:\u{1b}[93m2\u{1b}[0m x \u{1b}]8;;http://x\u{7}link";
        assert_eq!(strip_ansi(s), "src/a.ts:2 x link");
    }

    #[test]
    fn locations_parse_in_their_forms() {
        let l = location("src/a.c:7:32: error: boom").unwrap();
        assert_eq!(
            (l.file, l.line, l.column, l.rest),
            ("src/a.c", 7, Some(32), "error: boom")
        );
        let l = location("test_calc.py:8: AssertionError").unwrap();
        assert_eq!(
            (l.file, l.line, l.column, l.rest),
            ("test_calc.py", 8, None, "AssertionError")
        );
        let l = location("C:/x/a.c:3:4").unwrap();
        assert_eq!(
            (l.file, l.line, l.column, l.rest),
            ("C:/x/a.c", 3, Some(4), "")
        );
        assert_eq!(location("  indented.c:1:2: x"), None);
        assert_eq!(location("error: no location"), None);
        assert_eq!(location("time 12:30 is late").map(|l| l.line), None);
    }

    #[test]
    fn trailing_codes_split_off() {
        assert_eq!(trailing_code("bad [SC2045]"), ("bad", Some("SC2045")));
        assert_eq!(trailing_code("a [b c]"), ("a [b c]", None));
        assert_eq!(trailing_code("plain"), ("plain", None));
    }
}
