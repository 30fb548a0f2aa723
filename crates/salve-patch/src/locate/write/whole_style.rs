//! The whole file's say on added lines whose indentation style differs from the lines around
//! them when the reply's quoted lines show nothing of it (see [`crate::locate::write::style`]):
//! a file that indents some lines exactly so, a file settled in one style, and list items whose
//! continuations stand under their text.

use std::collections::HashSet;

use crate::locate::write::indentation::{list_marker, uses_tabs};
use crate::text::{is_blank, leading_ws, Doc};

/// `lines` with each line indented by one tab, continuing a list item of `lines` (`- item`,
/// `1. item`, then lines that go on with it), aligned under the item's text: how Markdown,
/// reStructuredText and YAML write a continuation whatever their level width. `None` when a
/// tab-indented line continues no item, or has more than one tab.
pub(crate) fn under_items(lines: &[String]) -> Option<Vec<String>> {
    let mut text_at: Option<usize> = None;
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        let ws = leading_ws(l);
        if ws.contains('\t') {
            let col = text_at.filter(|_| ws == "\t")?;
            out.push(format!("{}{}", " ".repeat(col), &l[ws.len()..]));
            continue;
        }
        if !is_blank(l) {
            text_at = match list_marker(&l[ws.len()..]) {
                Some(m) => Some(ws.len() + m),
                None if ws.is_empty() => None,
                None => text_at,
            };
        }
        out.push(l.clone());
    }
    Some(out)
}

/// The least number of indented lines a file must show, all in one style, before an added line
/// in the other style is taken for the reply's conversion of it: one or two indented lines are
/// too few to call a file's style settled.
const SETTLED: usize = 3;

/// What the whole file shows of its indentation, asked only when an added line's style differs
/// from the lines around it and the quoted lines do not say why.
#[derive(Clone, Debug, Default)]
pub(crate) struct Whole {
    /// Indented lines with tabs and with spaces.
    tabs: usize,
    spaces: usize,
    /// The leading whitespace of every indented line.
    indents: HashSet<String>,
    /// The hunk's quoted lines stand in the file with the same indentation (no shift).
    unshifted: bool,
}

/// What the reply's quoted lines show of its style, as far as the whole file's readings ask
/// (the style module's `ReplyStyle`, narrowed so the two modules do not import each other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shown {
    /// Quoted lines keep the file's indentation.
    Faithful,
    /// No quoted line is indented; every indented added line uses tabs (`true`) or spaces.
    OwnOnly(bool),
    /// Anything else.
    Other,
}

/// How the whole file reads added lines in the style the place does not use.
pub(crate) enum WholeReading {
    /// The file itself indents lines exactly so: written as they are.
    AsWritten,
    /// The file never uses that style: the reply's conversion, converted back.
    Convert,
    /// Neither: refused.
    Unclear,
}

impl Whole {
    pub(crate) fn of(doc: &Doc, unshifted: bool) -> Whole {
        let mut w = Whole {
            unshifted,
            ..Whole::default()
        };
        for l in doc.lines() {
            match uses_tabs(l) {
                Some(true) => w.tabs += 1,
                Some(false) => w.spaces += 1,
                None => continue,
            }
            w.indents.insert(leading_ws(l).to_owned());
        }
        w
    }

    /// The reading of added `lines` whose style (`odd`: tabs) differs from the place's.
    /// - A reply that quotes indented lines faithfully and indents its own lines in the other
    ///   style exactly as some lines of the file are indented follows the file's own mix (a
    ///   Makefile's space-indented conditionals among tab-indented recipes): as written.
    /// - A reply that quotes no indented line, writing every indented added line of the file's
    ///   edit in one style that the file, settled in the other, never uses: its conversion.
    ///
    /// `shown` is what the quoted lines show ([`Shown`]).
    pub(crate) fn reading(&self, lines: &[String], odd: bool, shown: Shown) -> WholeReading {
        let (odd_n, even_n) = if odd {
            (self.tabs, self.spaces)
        } else {
            (self.spaces, self.tabs)
        };
        let in_file = lines
            .iter()
            .filter(|l| uses_tabs(l) == Some(odd))
            .all(|l| self.indents.contains(leading_ws(l)));
        match shown {
            // A shifted quote (a reply indented one tab deeper throughout) is no copy of the
            // file's bytes: its tabs may be the shift's.
            Shown::Faithful if self.unshifted && odd_n > 0 && in_file => WholeReading::AsWritten,
            Shown::OwnOnly(own) if own == odd && odd_n == 0 && even_n >= SETTLED => {
                WholeReading::Convert
            }
            _ => WholeReading::Unclear,
        }
    }
}
