//! A reply that converts the file's indentation style, against a file that uses both styles.
//!
//! When the quoted lines show that the reply writes the file's tabs as spaces (or its spaces as
//! tabs), [`crate::locate::write::reindent`], [`crate::locate::write::style`] and [`crate::locate::write::quoted`] write the added lines in
//! the style of the lines around the landing place. That is sound while the reply's style
//! stands for one style of the file only. A file that indents some lines with tabs and others
//! with spaces (a script with a few tabbed lines, macros with one tabbed arm) gives an added
//! line in the reply's style two readings: the file's other style, converted, or the reply's
//! style as written. The neighbours choose one; the file itself can show the other: when the
//! reading not taken is a line of the file, byte for byte, and the one taken is not, the added
//! line may as well copy that line (a loop copied from the space-indented loop above, landing
//! after a tabbed line). Such a hunk is refused, never guessed. So is an added line left as
//! written between neighbours of both styles: the reply's style there is no evidence of its own.

use crate::text::Trim as _;
use std::collections::HashSet;

use crate::edit::{HunkLine, LineKind};
use crate::locate::write::indentation::{majority, seen_around, uses_tabs, Style};
use crate::locate::write::style::ReplyStyle;
use crate::locate::Placement;
use crate::ops::Op;
use crate::text::{is_blank, leading_ws, strip_cr, Doc};

/// The level widths a converted line may stand for when the quoted lines do not tell one.
const UNITS: [usize; 4] = [2, 3, 4, 8];

/// Refuse a hunk (placed at `p`) whose added line, in the style the reply converts the file's
/// other style into, was written (`ops`, after the restyling passes) in one reading while the
/// other reading stands in the file and the written one does not, or was left as written among
/// neighbours of both styles.
pub(crate) fn check(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    reply_style: ReplyStyle,
    ops: &[Op],
) -> Result<(), String> {
    let added: Vec<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text))
        .collect();
    let (tabs, shown) = match reply_style {
        ReplyStyle::TabsAsSpaces(u) => (false, u),
        ReplyStyle::SpacesAsTabs(u) => (true, u),
        // Quoted lines both kept and converted: a reply in one style against a file of both
        // (spaces quoting the file's spaces and its tabs alike). Its added lines in that style
        // have the same two readings.
        ReplyStyle::Mixed => match one_style(&added) {
            Some(tabs) => (tabs, None),
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    let written: Vec<&str> = ops
        .iter()
        .flat_map(|o| o.insert.iter())
        .filter(|n| n.eol.is_none())
        .map(|n| n.text.as_str())
        .collect();
    // Lines the file brings back in place of added ones: no one-for-one pairing.
    if written.len() != added.len() || !added.iter().any(|l| uses_tabs(l) == Some(tabs)) {
        return Ok(());
    }
    let (own, other) = if tabs {
        ("tabs", "spaces")
    } else {
        ("spaces", "tabs")
    };
    let (s, e) = p.range();
    let as_written = added
        .iter()
        .zip(&written)
        .any(|(raw, out)| uses_tabs(raw) == Some(tabs) && raw == out);
    if as_written && majority(&seen_around(doc, s, e)) == Style::Unknown {
        let seen = seen_around(doc, s, e);
        if seen.contains(&true) && seen.contains(&false) {
            return Err(format!(
                "the edit writes the file's {other} as {own}, and its added lines in {own} land between lines indented with tabs and lines indented with spaces, so which the file wants there is a guess; write the added lines in the file's own indentation"
            ));
        }
    }
    let file: HashSet<&str> = doc.lines().map(strip_cr).collect();
    for (raw, out) in added.iter().zip(&written) {
        if is_blank(raw) || uses_tabs(raw) != Some(tabs) || file.contains(out) {
            continue;
        }
        let others = if raw == out {
            readings(raw, tabs, shown)
        } else {
            vec![raw.to_string()]
        };
        if let Some(copy) = others.iter().find(|o| file.contains(o.as_str())) {
            return Err(format!(
                "the edit writes the file's {other} as {own}, and its added line {:?} is indented {:?} as the lines around it are, while the file has that very line indented {:?}; which is meant is a guess, so write the added lines in the file's own indentation",
                raw.trim_start_ws(),
                leading_ws(out),
                leading_ws(copy)
            ));
        }
    }
    Ok(())
}

/// The one style of the indented lines among `added`, if they agree (`true`: tabs).
fn one_style(added: &[&str]) -> Option<bool> {
    let mut seen = added.iter().filter_map(|l| uses_tabs(l));
    let first = seen.next()?;
    seen.all(|t| t == first).then_some(first)
}

/// The added line `raw`, written by the reply in its converted style (`tabs`: with tabs), read
/// as the file's other style: with the width the quoted lines show, else each usual width.
fn readings(raw: &str, tabs: bool, shown: Option<usize>) -> Vec<String> {
    let ws = leading_ws(raw);
    let body = &raw[ws.len()..];
    let units: Vec<usize> = shown.map_or(UNITS.to_vec(), |u| vec![u]);
    units
        .into_iter()
        .filter_map(|u| {
            if tabs {
                let n: usize = ws.chars().map(|c| if c == '\t' { u } else { 1 }).sum();
                Some(format!("{}{body}", " ".repeat(n)))
            } else {
                ws.len()
                    .is_multiple_of(u)
                    .then(|| format!("{}{body}", "\t".repeat(ws.len() / u)))
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::locate::rungs::search::{Fit, Span};
    use crate::ops::NewLine;
    use crate::report::Rung;
    use crate::text::Form;
    use LineKind::{Add, Context};

    /// Whether the hunk, its quoted lines placed from file line `at`, passes with `out` written.
    fn run(
        file: &str,
        at: usize,
        hunk: &[(LineKind, &str)],
        out: &[&str],
        how: ReplyStyle,
    ) -> bool {
        let lines: Vec<HunkLine> = hunk.iter().map(|(k, t)| HunkLine::new(*k, *t)).collect();
        let quoted = lines.iter().filter(|l| l.kind != Add).count();
        let fit = Fit {
            map: (at..at + quoted).map(Span::line).collect(),
            reindent: Default::default(),
            form: Form::Raw,
        };
        let p = Placement::new(Rung::Exact, fit, None);
        let insert = out
            .iter()
            .map(|t| NewLine {
                text: t.to_string(),
                eol: None,
            })
            .collect();
        let ops = [Op {
            start: at + 1,
            end: at + 1,
            insert,
            hunk: 0,
        }];
        check(&Doc::parse(file), &lines, &p, how, &ops).is_ok()
    }

    #[test]
    fn a_converted_line_the_file_has_as_written_is_refused() {
        // The tabbed `cat s` quoted with spaces; the added loop body copies the spaced loop's.
        let file = "for f in a; do\n    x=1\ndone\n\n\tcat r\n\tcat s\ndone\n";
        let hunk = [
            (Context, "    cat s"),
            (Add, "for g in b; do"),
            (Add, "    x=1"),
            (Add, "done"),
            (Context, "done"),
        ];
        let how = ReplyStyle::TabsAsSpaces(Some(4));
        assert!(!run(
            file,
            5,
            &hunk,
            &["for g in b; do", "\tx=1", "done"],
            how
        ));
        // As written: the file's own line.
        assert!(run(
            file,
            5,
            &hunk,
            &["for g in b; do", "    x=1", "done"],
            how
        ));
        // A line the file has in neither reading: the neighbours decide.
        let hunk = [(Context, "    cat s"), (Add, "    y=2"), (Context, "done")];
        assert!(run(file, 5, &hunk, &["\ty=2"], how));
        // A reply that keeps the file's style: its lines are taken as written.
        let hunk = [(Context, "    cat s"), (Add, "    x=1"), (Context, "done")];
        assert!(run(file, 5, &hunk, &["\tx=1"], ReplyStyle::Faithful));
    }

    #[test]
    fn a_reply_in_spaces_quoting_both_styles_has_the_same_two_readings() {
        // The reply writes every line with spaces: the spaced `x=1` kept, the tabbed `cat s`
        // converted. Its added `    cat r` lands among spaced lines, while the file has the
        // line with a tab.
        let file = "for f in a; do\n    x=1\n    y=2\n    w=4\ndone\n\tcat r\n\tcat s\n";
        let hunk = [
            (Context, "    x=1"),
            (Add, "    cat r"),
            (Context, "    y=2"),
        ];
        assert!(!run(file, 1, &hunk, &["    cat r"], ReplyStyle::Mixed));
        // A line the file has in neither reading: the neighbours decide.
        let hunk = [(Context, "    x=1"), (Add, "    z=3"), (Context, "    y=2")];
        assert!(run(file, 1, &hunk, &["    z=3"], ReplyStyle::Mixed));
    }

    #[test]
    fn a_line_left_as_written_between_both_styles_is_refused() {
        // Spaces written as tabs; between a spaced line above and a tabbed one below, the tab
        // stays as written, though the file has the line with four spaces.
        let file = "a {\n    // note\n}\n// top\nb {\n\tc\n}\n";
        let hunk = [(Context, "// top"), (Add, "\t// note"), (Context, "b {")];
        let how = ReplyStyle::SpacesAsTabs(Some(4));
        assert!(!run(file, 3, &hunk, &["\t// note"], how));
        assert!(!run(
            file,
            3,
            &hunk,
            &["\t// note"],
            ReplyStyle::SpacesAsTabs(None)
        ));
        // Converted to the file's line: taken.
        assert!(run(file, 3, &hunk, &["    // note"], how));
        // A line the file does not have, left as written there: still both styles around.
        let hunk = [(Context, "// top"), (Add, "\t// other"), (Context, "b {")];
        assert!(!run(file, 3, &hunk, &["\t// other"], how));
        // Not indented: nothing to choose.
        let hunk = [(Context, "// top"), (Add, "// other"), (Context, "b {")];
        assert!(run(file, 3, &hunk, &["// other"], how));
    }

    #[test]
    fn readings_convert_each_way() {
        assert_eq!(readings("\t\tx", true, Some(4)), ["        x"]);
        assert_eq!(readings("        x", false, Some(4)), ["\t\tx"]);
        // Six spaces are no whole number of four-space tabs.
        assert!(readings("      x", false, Some(4)).is_empty());
        assert_eq!(readings("    x", false, None), ["\t\tx", "\tx"]);
    }
}
