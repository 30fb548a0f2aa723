//! Alignment spaces when spaces become tabs.
//!
//! A reply that writes a tab-indented file with spaces gives each added line a width in
//! columns. A width that is a whole number of tabs has one rendering. One that is not
//! (eighteen columns at four per tab) has two: tabs up to the last full level and spaces after
//! (`\t\t\t\t  `), or the block's own tabs and alignment spaces up to the column (`\t` and
//! fourteen spaces, as C continuation lines are often aligned). The width alone cannot tell
//! them apart. A file that has lines of the second kind (tabs, then a tab's width of spaces or
//! more) uses it somewhere, so the converted line is refused rather than guessed; a file
//! without such lines renders widths the first way throughout, and the conversion stands.

use crate::edit::{HunkLine, LineKind};
use crate::locate::write::reindent::Reindent;
use crate::locate::write::style::ReplyStyle;
use crate::locate::Placement;
use crate::ops::Op;
use crate::text::Trim as _;
use crate::text::{leading_ws, strip_cr, Doc};

/// The spaces one tab stands for when nothing says: the narrowest level width, so that a file
/// aligning with fewer spaces than a tab is not missed.
const NARROWEST: usize = 2;

/// Refuse the hunk when an added line the reply indented with spaces was written with tabs and
/// spaces after them, while the file aligns some lines with spaces after its tabs (see the
/// module documentation).
pub(crate) fn check(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    reply_style: ReplyStyle,
    ops: &[Op],
) -> Result<(), String> {
    let tab = match (&p.fit.reindent, reply_style) {
        (
            Reindent::Columns {
                tab, tabs: true, ..
            },
            _,
        ) => *tab,
        (_, ReplyStyle::TabsAsSpaces(Some(unit))) => unit,
        _ => NARROWEST,
    };
    // An added line indented as a quoted line takes that line's indentation in the file
    // ([`crate::locate::write::quoted`]): the file shows its rendering.
    let quoted: Vec<&str> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Add)
        .map(|l| leading_ws(strip_cr(&l.text)))
        .collect();
    let spaced: Vec<&str> = lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| strip_cr(&l.text))
        .filter(|t| {
            let ws = leading_ws(t);
            !ws.is_empty() && !ws.contains('\t') && !quoted.contains(&ws)
        })
        .collect();
    if spaced.is_empty() {
        return Ok(());
    }
    let split = ops
        .iter()
        .flat_map(|o| o.insert.iter())
        .filter(|n| n.eol.is_none())
        .find(|n| {
            let (tabs, spaces) = tabs_then_spaces(&n.text);
            tabs > 0 && spaces > 0 && spaced.iter().any(|s| s.trim_ws() == n.text.trim_ws())
        });
    let Some(line) = split else {
        return Ok(());
    };
    let aligned = (0..doc.len()).find(|&i| {
        let (tabs, spaces) = tabs_then_spaces(doc.line(i));
        tabs > 0 && spaces >= tab && !doc.line(i).trim_ws().is_empty()
    });
    match aligned {
        Some(i) => Err(format!(
            "the added line `{}` is indented with spaces for this tab-indented file, at a width between two tab levels; the file aligns some lines with spaces after fewer tabs (line {}), so how many tabs it takes is unclear; write it with the file's tabs",
            line.text.trim_ws(),
            i + 1
        )),
        None => Ok(()),
    }
}

/// The tabs that open a line's indentation and the spaces right after them.
fn tabs_then_spaces(line: &str) -> (usize, usize) {
    let ws = leading_ws(line);
    let tabs = ws.len() - ws.trim_start_matches('\t').len();
    let spaces = ws[tabs..].len() - ws[tabs..].trim_start_matches(' ').len();
    (tabs, spaces)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::tabs_then_spaces;

    #[test]
    fn tabs_then_spaces_counts_the_opening_run_of_each() {
        assert_eq!(tabs_then_spaces("\t\t  x"), (2, 2));
        assert_eq!(tabs_then_spaces("\t              *rt;"), (1, 14));
        assert_eq!(tabs_then_spaces("    x"), (0, 4));
        assert_eq!(tabs_then_spaces("\t \tx"), (1, 1));
        assert_eq!(tabs_then_spaces("x"), (0, 0));
    }
}
