//! No-break spaces as indentation (issue 23 §4).
//!
//! A reply copied from a web chat often carries its indentation as no-break spaces (U+00A0, and
//! the narrow and figure spaces some renderers use): the page showed them as spaces, the model
//! wrote spaces. The ladder reads them as whitespace when it matches (the indent and canonical
//! rungs), but its indentation passes count widths in bytes and tell styles by the first byte,
//! so added lines came out written as they were, widened, turned into a tab or refused. Each
//! such character in a line's leading whitespace is one column: it is made a space before
//! placement, and the passes that write the file's own style (a uniform shift, levels, tabs)
//! take it from there. A file that itself indents a line with one is left to be matched as
//! written: there a no-break space may be the file's own.

use crate::text::Trim as _;
use std::borrow::Cow;

use crate::edit::{Hunk, TextPair};
use crate::locate::write::indentation::step;
use crate::text::{leading_ws, Doc};

/// Spaces that render as one column and are no indentation character of any language.
fn is_pasted_space(c: char) -> bool {
    matches!(c, '\u{00a0}' | '\u{2007}' | '\u{202f}')
}

fn has_pasted_indent(line: &str) -> bool {
    leading_ws(line).chars().any(is_pasted_space)
}

/// `line` with every pasted space of its leading whitespace made a space.
fn unbreak_line(line: &str) -> Cow<'_, str> {
    let ws = leading_ws(line);
    if !ws.chars().any(is_pasted_space) {
        return Cow::Borrowed(line);
    }
    let mut out: String = ws
        .chars()
        .map(|c| if is_pasted_space(c) { ' ' } else { c })
        .collect();
    out.push_str(&line[ws.len()..]);
    Cow::Owned(out)
}

/// `text` (several lines) with each line's leading pasted spaces made spaces.
fn unbreak_text(text: &str) -> String {
    text.split_inclusive('\n').map(unbreak_line).collect()
}

/// Why pasted indentation cannot be read in a file: it has no indented line (nothing tells
/// whether the reply's spaces were tabs or spaces), or it indents with tabs and a line holds
/// nothing but pasted spaces (no quoted line tells how many make a tab).
fn unreadable(current: &str, blank_pasted: bool) -> Option<String> {
    let doc = Doc::parse(current);
    let indented = doc
        .lines()
        .any(|l| l.starts_with([' ', '\t']) && !l.trim_ws().is_empty());
    if !indented {
        return Some(
            "the edit's lines are indented with no-break spaces (as a web page shows spaces), \
             and the file has no indented line to tell whether they stand for tabs or spaces; \
             write the indentation with the file's own characters"
                .to_owned(),
        );
    }
    (blank_pasted && doc.indents_with_tabs()).then(|| {
        "a line of the edit holds only no-break spaces, in a file indented with tabs, so how \
         many tabs it stands for cannot be told; write it as an empty line"
            .to_owned()
    })
}

/// A file indented with spaces whose indented lines show no level width (they only continue
/// list items, as in a changelog) reads pasted spaces by the widths it has: a pasted line at
/// another width could stand for a level as well as for columns (a tab pasted as eight
/// no-break spaces under a list item), so it is refused.
fn no_width_for(current: &str, hunks: &[Hunk]) -> Option<String> {
    let doc = Doc::parse(current);
    if doc.indents_with_tabs() || step(doc.lines()).is_some() {
        return None;
    }
    let widths: std::collections::HashSet<usize> = doc
        .lines()
        .filter(|l| !l.trim_ws().is_empty())
        .map(|l| leading_ws(l).len())
        .collect();
    let odd = hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| has_pasted_indent(&l.text) && !l.text.trim_ws().is_empty())
        .map(|l| leading_ws(&unbreak_line(&l.text)).len())
        .find(|w| !widths.contains(w))?;
    Some(format!(
        "a line of the edit is indented with {odd} no-break spaces (as a web page shows spaces), \
         and the file's indented lines show no level width, only their own widths, so what \
         they stand for cannot be told; write the indentation with the file's own characters"
    ))
}

fn blank_pasted(line: &str) -> bool {
    line.trim_ws().is_empty() && has_pasted_indent(line)
}

/// The hunks with pasted spaces in their lines' indentation made spaces, unless `current`
/// indents a line with one. Borrowed as they are when no line has one (the common case costs
/// a look at the hunks' indentation only). An error when the file cannot tell what they stand
/// for ([`unreadable`]).
pub(crate) fn unbreak<'h>(current: &str, hunks: &'h [Hunk]) -> Result<Cow<'h, [Hunk]>, String> {
    let pasted = |h: &Hunk| {
        h.lines.iter().any(|l| has_pasted_indent(&l.text))
            || h.substring
                .as_ref()
                .is_some_and(|p| p.old.lines().chain(p.new.lines()).any(has_pasted_indent))
    };
    if !hunks.iter().any(pasted) || current.lines().any(has_pasted_indent) {
        return Ok(Cow::Borrowed(hunks));
    }
    let blank = hunks
        .iter()
        .any(|h| h.lines.iter().any(|l| blank_pasted(&l.text)));
    if let Some(why) = unreadable(current, blank) {
        return Err(why);
    }
    if let Some(why) = no_width_for(current, hunks) {
        return Err(why);
    }
    let mut out = hunks.to_vec();
    for h in &mut out {
        for l in &mut h.lines {
            if let Cow::Owned(t) = unbreak_line(&l.text) {
                l.text = t;
            }
        }
        if let Some(pair) = &h.substring {
            h.substring = Some(TextPair {
                old: unbreak_text(&pair.old),
                new: unbreak_text(&pair.new),
            });
            // A text pair's lines were told apart by a diff of its two texts: a line written
            // with no-break spaces on one side only read as removed and added, and is context.
            let (pre, _) = crate::locate::pre_image(&h.lines);
            let post = crate::locate::post_image(&h.lines);
            h.lines = crate::parse::lower_pair(&pre, &post);
        }
    }
    Ok(Cow::Owned(out))
}

/// A whole file's `content` with pasted spaces in its indentation made spaces, for a file
/// (`current`) indented with spaces. In a file indented with tabs, or not at all, they are
/// refused: the reply's spaces may have stood for tabs, and how many make a tab cannot be told
/// from a whole file (a hunk's quoted lines show it; see [`unbreak`]). So is a line that stands
/// in the file with the same text at another indentation than its spaces give.
pub(crate) fn unbreak_whole<'c>(current: &str, content: &'c str) -> Result<Cow<'c, str>, String> {
    if !content.lines().any(has_pasted_indent) || current.lines().any(has_pasted_indent) {
        return Ok(Cow::Borrowed(content));
    }
    let tabs =
        "the new content is indented with no-break spaces (as a web page shows spaces), and \
                the file is indented with tabs or not at all, so what they stand for cannot be \
                told; write the file with its own indentation";
    if Doc::parse(current).indents_with_tabs() {
        return Err(tabs.to_owned());
    }
    if let Some(why) = unreadable(current, false) {
        return Err(why);
    }
    let out = unbreak_text(content);
    let file: std::collections::HashMap<&str, Vec<&str>> =
        current.lines().fold(Default::default(), |mut m, l| {
            m.entry(l.trim_ws()).or_default().push(leading_ws(l));
            m
        });
    for (raw, line) in content.lines().zip(out.lines()) {
        if !has_pasted_indent(raw) || line.trim_ws().is_empty() {
            continue;
        }
        if let Some(ws) = file.get(line.trim_ws()) {
            if !ws.contains(&leading_ws(line)) {
                return Err(format!(
                    "the new content is indented with no-break spaces, and its line `{}` stands \
                     in the file at another indentation, so what they stand for cannot be told; \
                     write the file with its own indentation",
                    line.trim_ws()
                ));
            }
        }
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::edit::{HunkLine, LineKind};

    #[test]
    fn pasted_indentation_is_spaces() {
        assert_eq!(unbreak_line("\u{a0}\u{a0}x\u{a0}y"), "  x\u{a0}y");
        assert_eq!(unbreak_line("\t\u{a0} x"), "\t  x");
        assert_eq!(unbreak_line("x"), "x");
        assert_eq!(unbreak_text("\u{a0}a\n\u{202f}\u{a0}b\n"), " a\n  b\n");
    }

    #[test]
    fn a_whole_file_takes_spaces_unless_the_file_has_tabs() {
        let content = "a:\n\u{a0}\u{a0}b: 1\n";
        assert_eq!(
            unbreak_whole("a:\n  b: 2\n", content).unwrap(),
            "a:\n  b: 1\n"
        );
        assert!(unbreak_whole("a {\n\tb\n}\n", content).is_err());
        assert_eq!(unbreak_whole("x\n", "y\n").unwrap(), "y\n");
    }

    #[test]
    fn a_file_indented_with_them_keeps_the_reply_as_written() {
        let hunk = Hunk {
            lines: vec![HunkLine::new(LineKind::Add, "\u{a0}\u{a0}x")],
            ..Hunk::default()
        };
        let hunks = [hunk];
        assert!(
            matches!(unbreak("a\n  b\n", &hunks), Ok(Cow::Owned(ref h)) if h[0].lines[0].text == "  x")
        );
        assert!(matches!(
            unbreak("a\n\u{a0}b\n", &hunks),
            Ok(Cow::Borrowed(_))
        ));
        // A file without indentation cannot tell tabs from spaces.
        assert!(unbreak("a\nb\n", &hunks).is_err());
    }

    #[test]
    fn a_file_without_a_level_width_takes_only_its_own_widths() {
        // A changelog whose indented lines only continue list items.
        let file = "* one\n  goes on\n* two\n  goes on\n";
        let at = |w: usize| {
            [Hunk {
                lines: vec![
                    HunkLine::new(LineKind::Add, "* three"),
                    HunkLine::new(LineKind::Add, format!("{}more", "\u{a0}".repeat(w))),
                ],
                ..Hunk::default()
            }]
        };
        assert!(
            matches!(unbreak(file, &at(2)), Ok(Cow::Owned(ref h)) if h[0].lines[1].text == "  more")
        );
        assert!(unbreak(file, &at(8)).is_err());
        // A file with levels reads pasted spaces by columns, at any width.
        assert!(unbreak("a:\n  b:\n    c: 1\n", &at(8)).is_ok());
    }
}
