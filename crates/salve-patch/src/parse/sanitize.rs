//! Line-level hygiene shared by every format: lazy placeholders in added lines (what a
//! placeholder is, is [`crate::placeholder`]'s) and line-number prefixes.
//!
//! Models stand in for code they did not want to repeat with placeholder lines. Two kinds are
//! told apart here:
//! - an *elision* (`...`, `// ...`, `# ... existing code ...`) in a pre-image or context position
//!   is a legitimate "skip some unchanged lines" that the applier's elision rung can match;
//! - a *lazy placeholder* in a position that would be written to the file (added lines, whole-file
//!   content) would replace real code with a comment, so the edit must be refused.

use crate::edit::{Hunk, LineKind};
use crate::placeholder::{is_comment_dots, is_lazy};

/// The first added line of `hunks` that is a lazy placeholder.
pub(crate) fn lazy_added_line(hunks: &[Hunk]) -> Option<&str> {
    hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .find(|l| l.kind == LineKind::Add && (is_lazy(&l.text) || is_comment_dots(&l.text)))
        .map(|l| l.text.as_str())
}

/// The style of a line-number prefix.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NumStyle {
    /// `12 | code` or `12| code`
    Pipe,
    /// `12: code`
    Colon,
    /// `12\tcode` (`cat -n`)
    Tab,
}

/// Splits `   12 | text` into (12, style, text).
fn split_number(line: &str) -> Option<(u64, NumStyle, &str)> {
    let t = line.trim_start_matches(' ');
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let n: u64 = t.get(..digits)?.parse().ok()?;
    let rest = t.get(digits..)?;
    if let Some(r) = rest.strip_prefix('\t') {
        return Some((n, NumStyle::Tab, r));
    }
    if let Some(r) = rest.trim_start_matches(' ').strip_prefix('|') {
        return Some((n, NumStyle::Pipe, r.strip_prefix(' ').unwrap_or(r)));
    }
    if let Some(r) = rest.strip_prefix(':') {
        if r.is_empty() || r.starts_with(' ') {
            return Some((n, NumStyle::Colon, r.strip_prefix(' ').unwrap_or(r)));
        }
    }
    None
}

/// When every line carries a line-number prefix of the same style with consecutive numbers,
/// returns the first number and the lines without prefixes. Two lines at least: a single
/// numbered line is too weak a signal to rewrite content.
pub(crate) fn strip_line_numbers<'a>(lines: &[&'a str]) -> Option<(u64, Vec<&'a str>)> {
    if lines.len() < 2 {
        return None;
    }
    let (first, style, _) = split_number(lines[0])?;
    let mut out = Vec::with_capacity(lines.len());
    for (k, line) in lines.iter().enumerate() {
        let (n, s, rest) = split_number(line)?;
        if s != style || n != first.checked_add(k as u64)? {
            return None;
        }
        out.push(rest);
    }
    Some((first, out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_stripped_only_when_all_consecutive() {
        let (n, out) =
            strip_line_numbers(&["  9 | fn a() {", " 10 |     b();", " 11 | }"]).unwrap();
        assert_eq!(n, 9);
        assert_eq!(out, vec!["fn a() {", "    b();", "}"]);
        let (_, out) = strip_line_numbers(&["3: x", "4:", "5: y"]).unwrap();
        assert_eq!(out, vec!["x", "", "y"]);
        assert!(strip_line_numbers(&["1: a", "3: b"]).is_none());
        assert!(strip_line_numbers(&["1 | a", "b"]).is_none());
        assert!(strip_line_numbers(&["1 | a", "2: b"]).is_none());
        assert!(strip_line_numbers(&["1 | a"]).is_none());
        assert!(strip_line_numbers(&["12:30 meeting", "12:31 x"]).is_none());
    }
}
