//! A reply that converts the file's indentation style, against a file that uses both styles.
//!
//! When the quoted lines show that the reply writes the file's tabs as spaces (or its spaces as
//! tabs), [`super::reindent`], [`super::style`] and [`super::quoted`] write the added lines in
//! the style of the lines around the landing place. That is sound while the reply's style
//! stands for one style of the file only. A file that indents some lines with tabs and others
//! with spaces (a script with a few tabbed lines, macros with one tabbed arm) gives an added
//! line in the reply's style two readings: the file's other style, converted, or the reply's
//! style as written. The neighbours choose one; the file itself can show the other: when the
//! reading not taken is a line of the file, byte for byte, and the one taken is not, the added
//! line may as well copy that line (a loop copied from the space-indented loop above, landing
//! after a tabbed line). Such a hunk is refused, never guessed.

use std::collections::HashSet;

use super::style::{uses_tabs, ReplyStyle};
use crate::edit::{HunkLine, LineKind};
use crate::ops::Op;
use crate::text::{is_blank, leading_ws, strip_cr, Doc};

/// The level widths a converted line may stand for when the quoted lines do not tell one.
const UNITS: [usize; 4] = [2, 3, 4, 8];

/// Refuse a hunk whose added line, in the style the reply converts the file's other style
/// into, was written (`ops`, after the restyling passes) in one reading while the other reading
/// stands in the file and the written one does not.
pub(crate) fn check(
    doc: &Doc,
    lines: &[HunkLine],
    reply_style: ReplyStyle,
    ops: &[Op],
) -> Result<(), String> {
    let (tabs, shown) = match reply_style {
        ReplyStyle::TabsAsSpaces(u) => (false, u),
        ReplyStyle::SpacesAsTabs(u) => (true, u),
        _ => return Ok(()),
    };
    let added: Vec<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text))
        .collect();
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
                "the edit writes the file's {} as {}, and its added line {:?} is indented {:?} as the lines around it are, while the file has that very line indented {:?}; which is meant is a guess, so write the added lines in the file's own indentation",
                if tabs { "spaces" } else { "tabs" },
                if tabs { "tabs" } else { "spaces" },
                raw.trim_start(),
                leading_ws(out),
                leading_ws(copy)
            ));
        }
    }
    Ok(())
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
    use crate::ops::NewLine;
    use LineKind::{Add, Context};

    fn run(file: &str, hunk: &[(LineKind, &str)], out: &[&str], how: ReplyStyle) -> bool {
        let lines: Vec<HunkLine> = hunk.iter().map(|(k, t)| HunkLine::new(*k, *t)).collect();
        let insert = out
            .iter()
            .map(|t| NewLine {
                text: t.to_string(),
                eol: None,
            })
            .collect();
        let ops = [Op {
            start: 0,
            end: 0,
            insert,
            hunk: 0,
        }];
        check(&Doc::parse(file), &lines, how, &ops).is_ok()
    }

    #[test]
    fn a_converted_line_the_file_has_as_written_is_refused() {
        // The tabbed `cat` quoted with spaces; the added loop body copies the spaced loop's.
        let file = "for f in a; do\n    x=1\ndone\n\tcat r\ndone\n";
        let hunk = [
            (Context, "    cat r"),
            (Add, "for g in b; do"),
            (Add, "    x=1"),
            (Add, "done"),
            (Context, "done"),
        ];
        let how = ReplyStyle::TabsAsSpaces(Some(4));
        assert!(!run(file, &hunk, &["for g in b; do", "\tx=1", "done"], how));
        // As written: the file's own line.
        assert!(run(
            file,
            &hunk,
            &["for g in b; do", "    x=1", "done"],
            how
        ));
        // A line the file has in neither reading: the neighbours decide.
        let hunk = [(Context, "    cat r"), (Add, "    y=2"), (Context, "done")];
        assert!(run(file, &hunk, &["\ty=2"], how));
        // A reply that keeps the file's style: its lines are taken as written.
        let hunk = [(Context, "    cat r"), (Add, "    x=1"), (Context, "done")];
        assert!(run(file, &hunk, &["\tx=1"], ReplyStyle::Faithful));
    }

    #[test]
    fn a_line_left_as_written_whose_conversion_the_file_has_is_refused() {
        // Spaces written as tabs; between neighbours of both styles the tab stays, while the
        // file has the line with four spaces.
        let file = "a {\n    // note\n}\n// top\nb {\n\tc\n}\n";
        let hunk = [(Context, "// top"), (Add, "\t// note"), (Context, "b {")];
        let how = ReplyStyle::SpacesAsTabs(Some(4));
        assert!(!run(file, &hunk, &["\t// note"], how));
        assert!(run(file, &hunk, &["    // note"], how));
        // Without a width shown, every usual one is tried.
        assert!(!run(
            file,
            &hunk,
            &["\t// note"],
            ReplyStyle::SpacesAsTabs(None)
        ));
    }
}
