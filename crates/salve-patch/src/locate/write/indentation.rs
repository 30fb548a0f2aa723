//! What the file's own lines say of its indentation: tabs or spaces around a place, and how
//! wide a level of spaces is. Leaf readings shared by the passes that write added lines in the
//! file's style ([`crate::locate::write::style`], [`crate::locate::write::reindent`], [`crate::locate::write::levels`], [`crate::locate::write::mixed`]).

use crate::text::{is_blank, leading_ws, Doc};

/// How many of the nearest indented lines on each side of the landing place decide its style
/// (with the matched lines themselves): one, since a file may change style between blocks and
/// a line further away may belong to the other block.
const NEIGHBOURS: usize = 1;
/// How far to look on each side for them.
const REACH: usize = 400;
/// The level widths a file or reply is taken to use.
pub(crate) const UNITS: [usize; 4] = [2, 3, 4, 8];

/// The indentation style around a place in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Tabs,
    Spaces,
    /// No indented lines, or both styles: the inserted lines are left as written.
    Unknown,
}

/// What a line's leading whitespace says about its style: `Some(true)` tabs, `Some(false)`
/// spaces (two or more, so a ` * ` comment continuation is no evidence), `None` nothing.
pub(crate) fn uses_tabs(line: &str) -> Option<bool> {
    let ws = leading_ws(line);
    if is_blank(line) {
        return None;
    }
    match ws.as_bytes().first() {
        Some(b'\t') => Some(true),
        Some(b' ') if ws.len() >= 2 && !ws.contains('\t') => Some(false),
        _ => None,
    }
}

/// The style of the file around lines `[s, e)`: the nearest indented lines on both sides (and
/// inside), when at least three quarters of them agree.
#[cfg(test)]
pub(crate) fn around(doc: &Doc, s: usize, e: usize) -> Style {
    majority(&seen_around(doc, s, e))
}

/// What the indented lines inside `[s, e)` and the nearest ones on each side say (see
/// [`uses_tabs`]).
pub(crate) fn seen_around(doc: &Doc, s: usize, e: usize) -> Vec<bool> {
    let s = s.min(doc.len());
    let e = e.clamp(s, doc.len());
    let inside = (s..e).map(|i| doc.line(i));
    let before = (s.saturating_sub(REACH)..s).rev().map(|i| doc.line(i));
    let after = (e..doc.len().min(e + REACH)).map(|i| doc.line(i));
    let side = |it: &mut dyn Iterator<Item = &str>| -> Vec<bool> {
        it.filter_map(uses_tabs).take(NEIGHBOURS).collect()
    };
    let mut seen: Vec<bool> = inside.filter_map(uses_tabs).collect();
    seen.extend(side(&mut before.into_iter()));
    seen.extend(side(&mut after.into_iter()));
    seen
}

/// The style at least three quarters of `seen` agree on.
pub(crate) fn majority(seen: &[bool]) -> Style {
    let tabs = seen.iter().filter(|&&t| t).count();
    let spaces = seen.len() - tabs;
    if seen.is_empty() || tabs.max(spaces) * 4 < seen.len() * 3 {
        return Style::Unknown;
    }
    if tabs > spaces {
        return Style::Tabs;
    }
    Style::Spaces
}

/// The width of one level of space indentation around lines `[s, e)`, or in the whole file when
/// the lines around do not show one. Asked only when a line must be converted.
pub(crate) fn space_unit(doc: &Doc, s: usize, e: usize) -> Option<usize> {
    let lo = s.saturating_sub(REACH);
    let hi = doc.len().min(e + REACH);
    step((lo..hi).map(|i| doc.line(i))).or_else(|| step(doc.lines()))
}

/// The most common width by which a space-indented line is deeper than the one before it, among
/// the usual level widths: the file's level. `None` when no line steps deeper. A line that
/// continues a list item under the item's text (`- item` then two spaces, `10. item` then
/// four) is aligned, not a level deeper: Markdown, reStructuredText and YAML write their
/// continuations so whatever their level width.
pub(crate) fn step<'a>(lines: impl Iterator<Item = &'a str>) -> Option<usize> {
    let mut counts = [0usize; UNITS.len()];
    let mut prev: Option<usize> = None;
    let mut item: Option<usize> = None;
    for line in lines {
        if is_blank(line) {
            continue;
        }
        let ws = leading_ws(line);
        if ws.contains('\t') {
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let aligned = item.is_some_and(|w| ws.len() == p + w);
            if let Some(k) = UNITS.iter().position(|&u| ws.len() == p + u && !aligned) {
                counts[k] += 1;
            }
        }
        prev = Some(ws.len());
        item = list_marker(&line[ws.len()..]);
    }
    let best = counts.iter().copied().max().filter(|&c| c > 0)?;
    let k = counts.iter().position(|&c| c == best)?;
    Some(UNITS[k])
}

/// The width of a list item's marker and the space after it (`- `, `* `, `+ `, `1. `, `2) `)
/// when `text` (a line without its indentation) starts a list item.
pub(crate) fn list_marker(text: &str) -> Option<usize> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let mark = match text.as_bytes().get(digits) {
        Some(b'.' | b')') if (1..=9).contains(&digits) => digits + 1,
        Some(b'-' | b'*' | b'+') if digits == 0 => 1,
        _ => return None,
    };
    let rest = &text[mark..];
    let after = rest.strip_prefix(' ')?;
    after
        .chars()
        .next()
        .is_some_and(|c| !c.is_whitespace())
        .then_some(mark + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_continuations_are_no_level() {
        // Continuations aligned under a list item's text tell no level width.
        let md = [
            "- first item",
            "  goes on here",
            "",
            "10. tenth",
            "    goes on",
            "* x",
            "  y",
        ];
        assert_eq!(step(md.into_iter()), None);
        // A real step after an item (deeper than its text) still counts, as does YAML nesting.
        assert_eq!(step(["- a", "    b", "- c", "    d"].into_iter()), Some(4));
        assert_eq!(
            step(["key:", "  sub: 1", "  more:", "    x: 2"].into_iter()),
            Some(2)
        );
        // Not list markers: no space after, or nothing after the space.
        assert_eq!(list_marker("*args"), None);
        assert_eq!(list_marker("- "), None);
        assert_eq!(list_marker("-1"), None);
        assert_eq!(list_marker("2) two"), Some(3));
    }
}
