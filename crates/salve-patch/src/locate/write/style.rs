//! The indentation style of inserted lines: tabs or spaces, and how wide a level is, taken from
//! the lines around the place they land (DESIGN.md §3.2, issue 14 §3 e).
//!
//! The indent rung maps the reply's indentation onto the file's when the matched lines show a
//! delta. When they show none (context without indentation, or a reply that quotes the context
//! in the file's style and writes its own lines in another), the added lines would keep the
//! reply's style: tabs in a file indented with spaces, or the reverse. A file may mix styles, so
//! the style is read from the nearest indented lines, not from the file's majority. One level of
//! the reply (a tab, or its own width of spaces) becomes one level of the file. When the width
//! of a level on either side is not clear, the hunk is refused rather than guessed.

use crate::edit::{HunkLine, LineKind};
use crate::locate::write::indentation::{
    majority, seen_around, space_unit, uses_tabs, Style, UNITS,
};
use crate::locate::write::reindent::Reindent;
use crate::locate::write::whole_style::{under_items, Shown, Whole, WholeReading};
use crate::locate::{pre_image, Placement};
use crate::ops::Op;
use crate::text::{is_blank, leading_ws, strip_cr, Doc};

/// How the reply writes the file's indentation, as its quoted lines (context and removed lines,
/// against the file lines they matched) show: the evidence for what its added lines mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum ReplyStyle {
    /// No quoted line is indented: nothing is known.
    #[default]
    Unknown,
    /// Quoted lines keep the file's tabs or spaces. Added lines in the other style are then the
    /// model's slip or the file's own mix (real commits mix on purpose): unclear, refused.
    Faithful,
    /// The reply writes the file's tabs as spaces; with the spaces one tab stands for, when the
    /// quoted lines agree on it (eight spaces quoting two tabs: four).
    TabsAsSpaces(Option<usize>),
    /// The reply writes the file's spaces as tabs; with the spaces one tab stands for, when the
    /// quoted lines agree on it.
    SpacesAsTabs(Option<usize>),
    /// Both, or faithful and converted lines: unclear.
    Mixed,
    /// No quoted line is indented, and every indented added line of the file's edit uses tabs
    /// (`true`) or spaces (`false`): the reply's own style, consistent across its hunks. Taken
    /// as a conversion only against a file that never uses that style (see [`restyle`]).
    OwnOnly(bool),
}

/// The [`ReplyStyle`] shown by placed hunks: each with its lines and placement.
pub(crate) fn reply_style<'a>(
    doc: &Doc,
    placed: impl Iterator<Item = (&'a [HunkLine], &'a Placement)>,
) -> ReplyStyle {
    let (mut same, mut t2s, mut s2t) = (false, false, false);
    // Spaces per tab each quoted line shows: `None` once two disagree.
    let mut per_tab: Option<Option<usize>> = None;
    // The styles the added lines are written in: (tabs, spaces) seen.
    let mut own = (false, false);
    for (lines, p) in placed {
        for l in lines.iter().filter(|l| l.kind == LineKind::Add) {
            match uses_tabs(strip_cr(&l.text)) {
                Some(true) => own.0 = true,
                Some(false) => own.1 = true,
                None => {}
            }
        }
        let (pre, _) = pre_image(lines);
        // A prefix the fit adds or strips is the whole reply shifted, already undone for the
        // added lines: the style is judged on what is left (a tab before every line of a
        // space-indented quote shifts it, and writes no space as a tab).
        let prefixed = matches!(p.fit.reindent, Reindent::Prefix(_) | Reindent::Strip(_));
        // A fit that shifts the reply's indentation otherwise says nothing of a tab's width.
        let unshifted = matches!(
            p.fit.reindent,
            Reindent::Same | Reindent::Columns { delta: 0, .. }
        );
        for (text, span) in pre.iter().zip(&p.fit.map) {
            if span.end != span.start + 1 {
                continue;
            }
            let shifted;
            let text = if prefixed {
                shifted = p.fit.reindent.apply(text);
                shifted.as_str()
            } else {
                text
            };
            let file = doc.line(span.start);
            let seen = match (uses_tabs(text), uses_tabs(file)) {
                (Some(a), Some(b)) if a == b => {
                    same = true;
                    continue;
                }
                (Some(false), Some(true)) => {
                    t2s = true;
                    spaces_per_tab(text, file)
                }
                (Some(true), Some(false)) => {
                    s2t = true;
                    spaces_per_tab(file, text)
                }
                _ => continue,
            };
            let seen = seen.filter(|_| unshifted);
            per_tab = match per_tab {
                None => Some(seen),
                Some(w) if w == seen => Some(w),
                Some(_) => Some(None),
            };
        }
    }
    match (same, t2s, s2t) {
        (false, false, false) => match own {
            (true, false) => ReplyStyle::OwnOnly(true),
            (false, true) => ReplyStyle::OwnOnly(false),
            _ => ReplyStyle::Unknown,
        },
        (true, false, false) => ReplyStyle::Faithful,
        (false, true, false) => ReplyStyle::TabsAsSpaces(per_tab.flatten()),
        (false, false, true) => ReplyStyle::SpacesAsTabs(per_tab.flatten()),
        _ => ReplyStyle::Mixed,
    }
}

/// The spaces one tab stands for when the space-indented `text` stands for the line `file`
/// indented with tabs only (either may be the reply's), at a whole multiple.
fn spaces_per_tab(text: &str, file: &str) -> Option<usize> {
    let (spaces, tabs) = (leading_ws(text), leading_ws(file));
    if spaces.contains('\t') || tabs.contains(' ') || tabs.is_empty() {
        return None;
    }
    let unit = spaces.len() / tabs.len();
    (spaces.len().is_multiple_of(tabs.len()) && UNITS.contains(&unit)).then_some(unit)
}

/// The inserted lines `lines` (a hunk's, after re-indentation) where they land, in a place of
/// style `style`. A line whose style differs from the place's is converted when the reply's
/// quoted lines show that it converts the file's style (`reply_style`), or when the whole file
/// settles the question ([`Whole`]), and refused otherwise: then tabs among spaces may be the
/// model's drift or the file's own mix, and the two give different files. `reply` holds every
/// line of the hunk as the model wrote it, to tell the width of its own space levels;
/// `depth_before` is the tab depth of the file's nearest non-blank line before the landing
/// place, used only to choose between level widths the reply leaves open.
pub(crate) fn restyle(
    lines: &mut [String],
    style: Style,
    reply_style: ReplyStyle,
    reply: &[&str],
    depth_before: usize,
    unit: impl FnOnce() -> Option<usize>,
    whole: impl FnOnce() -> Whole,
) -> Result<(), String> {
    let (odd, converts) = match style {
        Style::Unknown => return Ok(()),
        Style::Spaces => (true, matches!(reply_style, ReplyStyle::SpacesAsTabs(_))),
        Style::Tabs => (false, matches!(reply_style, ReplyStyle::TabsAsSpaces(_))),
    };
    if !lines.iter().any(|l| uses_tabs(l) == Some(odd)) {
        return Ok(());
    }
    let (have, want) = if odd {
        ("tabs", "spaces")
    } else {
        ("spaces", "tabs")
    };
    let converts = converts || {
        let shown = match reply_style {
            ReplyStyle::Faithful => Shown::Faithful,
            ReplyStyle::OwnOnly(t) => Shown::OwnOnly(t),
            _ => Shown::Other,
        };
        match whole().reading(lines, odd, shown) {
            WholeReading::AsWritten => return Ok(()),
            WholeReading::Convert => true,
            WholeReading::Unclear => false,
        }
    };
    if !converts {
        return Err(format!(
            "the added lines are indented with {have} where the lines around use {want}, and the lines the edit quotes do not show which is meant; write them in the file's style, or quote indented lines around them"
        ));
    }
    match style {
        Style::Spaces => {
            // The spaces a tab stands for as the quoted lines show them, else the file's level.
            let shown = match reply_style {
                ReplyStyle::SpacesAsTabs(shown) => shown,
                _ => None,
            };
            let Some(unit) = shown.or_else(unit) else {
                // A file whose only space-indented lines continue list items shows no level
                // width; a tab that continues an item of the added lines still has one place.
                return match under_items(lines) {
                    Some(aligned) => {
                        lines.iter_mut().zip(aligned).for_each(|(l, a)| *l = a);
                        Ok(())
                    }
                    None => Err(unclear(have, want)),
                };
            };
            for l in lines.iter_mut().filter(|l| leading_ws(l).contains('\t')) {
                let ws = leading_ws(l);
                let new: String = ws
                    .chars()
                    .flat_map(|c| {
                        let n = if c == '\t' { unit } else { 1 };
                        std::iter::repeat_n(' ', n)
                    })
                    .collect();
                *l = format!("{new}{}", &l[ws.len()..]);
            }
        }
        _ => {
            let shown = match reply_style {
                ReplyStyle::TabsAsSpaces(shown) => shown,
                _ => None,
            };
            let Some(unit) = tab_unit(shown, reply, lines, depth_before) else {
                return Err(unclear(have, want));
            };
            for l in lines.iter_mut().filter(|l| uses_tabs(l) == Some(false)) {
                let w = leading_ws(l).len();
                let new = format!("{}{}", "\t".repeat(w / unit), " ".repeat(w % unit));
                *l = format!("{new}{}", &l[w..]);
            }
        }
    }
    Ok(())
}

/// The spaces one tab of the file stands for in the added `lines`: what the quoted lines show
/// (`shown`), when every added line's spaces are a whole number of it, else what the reply's
/// own widths tell ([`reply_unit`]). Quoted lines that show one width while the added lines
/// need another are unclear.
fn tab_unit(
    shown: Option<usize>,
    reply: &[&str],
    lines: &[String],
    depth_before: usize,
) -> Option<usize> {
    let Some(unit) = shown else {
        return reply_unit(reply, lines, depth_before);
    };
    lines
        .iter()
        .filter(|l| uses_tabs(l) == Some(false))
        .all(|l| leading_ws(l).len().is_multiple_of(unit))
        .then_some(unit)
}

/// The width of one level of the reply's space indentation: the narrowest indentation among its
/// space-indented lines when that is an unambiguous level width (2, 3 or 4). A wider one (8
/// could be one level of 8 or two of 4) is decided by the depth of the line before the landing
/// place: the inserted lines' first level must sit within one level of it, for one width only.
fn reply_unit(reply: &[&str], lines: &[String], depth_before: usize) -> Option<usize> {
    let narrowest = reply
        .iter()
        .copied()
        .chain(lines.iter().map(String::as_str))
        .filter(|l| uses_tabs(l) == Some(false))
        .map(|l| leading_ws(l).len())
        .min()?;
    if narrowest <= 4 {
        return UNITS.contains(&narrowest).then_some(narrowest);
    }
    let first = lines
        .iter()
        .find(|l| uses_tabs(l) == Some(false))
        .map(|l| leading_ws(l).len())?;
    let fits: Vec<usize> = UNITS
        .iter()
        .copied()
        .filter(|&u| narrowest % u == 0 && (first / u).abs_diff(depth_before) <= 1)
        .collect();
    match fits[..] {
        [u] => Some(u),
        _ => None,
    }
}

/// The model-written lines `ops` insert for one placed hunk, in the style around the place.
/// Lines copied from the file (moved code, which carry their own ending) are left as they are.
pub(crate) fn restyle_ops(
    doc: &Doc,
    lines: &[HunkLine],
    p: &Placement,
    reply_style: ReplyStyle,
    ops: &mut [Op],
) -> Result<(), String> {
    let written = || {
        ops.iter()
            .flat_map(|o| o.insert.iter())
            .filter(|n| n.eol.is_none())
    };
    // Nothing indented, nothing to decide: the common case costs no look at the file.
    if written().all(|n| leading_ws(&n.text).is_empty()) {
        return Ok(());
    }
    let mut texts: Vec<String> = written().map(|n| n.text.clone()).collect();
    let (s, e) = p.range();
    let depth = (0..s)
        .rev()
        .map(|i| doc.line(i))
        .find(|l| !is_blank(l))
        .map_or(0, |l| l.len() - l.trim_start_matches('\t').len());
    let reply: Vec<&str> = lines.iter().map(|l| strip_cr(&l.text)).collect();
    let unit = || space_unit(doc, s, e);
    let seen = seen_around(doc, s, e);
    // No indented line within reach: a reply that converts the file's style has its added lines
    // in the converted style whatever the place, and the file's own style is the whole file's.
    let converts = matches!(
        reply_style,
        ReplyStyle::TabsAsSpaces(_) | ReplyStyle::SpacesAsTabs(_)
    );
    let style = if seen.is_empty() && converts {
        let all: Vec<bool> = doc.lines().filter_map(uses_tabs).collect();
        majority(&all)
    } else {
        majority(&seen)
    };
    let unshifted = matches!(p.fit.reindent, Reindent::Same);
    restyle(&mut texts, style, reply_style, &reply, depth, unit, || {
        Whole::of(doc, unshifted)
    })?;
    let slots = ops
        .iter_mut()
        .flat_map(|o| o.insert.iter_mut())
        .filter(|n| n.eol.is_none());
    for (n, t) in slots.zip(texts) {
        n.text = t;
    }
    Ok(())
}

fn unclear(have: &str, want: &str) -> String {
    format!(
        "the added lines are indented with {have} where the lines around use {want}, and how wide one level is cannot be told; write them in the file's style"
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::locate::write::indentation::around;

    fn restyled(
        file: &str,
        at: usize,
        how: ReplyStyle,
        lines: &[&str],
    ) -> Result<Vec<String>, String> {
        let doc = Doc::parse(file);
        let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        restyle(
            &mut v,
            around(&doc, at, at),
            how,
            lines,
            0,
            || space_unit(&doc, at, at),
            || Whole::of(&doc, true),
        )?;
        Ok(v)
    }

    #[test]
    fn tabs_become_the_neighbours_spaces() {
        let file = "int f() {\n    if (x) {\n        y();\n    }\n}\n\nint g() {\n}\n";
        let out = restyled(
            file,
            6,
            ReplyStyle::SpacesAsTabs(None),
            &["int h() {", "\tif (z) {", "\t\tw();", "\t}", "}"],
        );
        assert_eq!(
            out.unwrap(),
            ["int h() {", "    if (z) {", "        w();", "    }", "}"]
        );
    }

    #[test]
    fn spaces_become_the_neighbours_tabs() {
        let file = "a {\n\tb\n\t\tc\n}\n";
        let out = restyled(
            file,
            4,
            ReplyStyle::TabsAsSpaces(None),
            &["d {", "    e", "        f", "     * g", "}"],
        );
        assert_eq!(out.unwrap(), ["d {", "\te", "\t\tf", "\t * g", "}"]);
    }

    #[test]
    fn quoted_lines_tell_how_many_spaces_a_tab_is() {
        // Eight spaces after a line at depth 0 read as one level of eight by themselves; the
        // reply's quoted lines show eight spaces for two tabs, so they are two levels of four.
        let file = "use std::{\n\t\tio,\n};\n\nmod a;\n";
        let lines = ["        fs,"];
        assert_eq!(
            restyled(file, 4, ReplyStyle::TabsAsSpaces(None), &lines).unwrap(),
            ["\tfs,"]
        );
        assert_eq!(
            restyled(file, 4, ReplyStyle::TabsAsSpaces(Some(4)), &lines).unwrap(),
            ["\t\tfs,"]
        );
        // A width the shown tab does not divide is unclear.
        assert!(restyled(file, 4, ReplyStyle::TabsAsSpaces(Some(4)), &["      fs,"]).is_err());
    }

    #[test]
    fn tabs_become_as_many_spaces_as_the_quoted_lines_show() {
        // Two-space levels around, but the reply's quoted lines showed a tab for four spaces.
        let file = "a {\n  b\n  c\n}\n";
        let lines = ["\td"];
        assert_eq!(
            restyled(file, 2, ReplyStyle::SpacesAsTabs(None), &lines).unwrap(),
            ["  d"]
        );
        assert_eq!(
            restyled(file, 2, ReplyStyle::SpacesAsTabs(Some(4)), &lines).unwrap(),
            ["    d"]
        );
    }

    #[test]
    fn spaces_per_tab_come_from_whole_multiples() {
        assert_eq!(spaces_per_tab("        x", "\t\tx"), Some(4));
        assert_eq!(spaces_per_tab("    x", "\tx"), Some(4));
        assert_eq!(spaces_per_tab("     x", "\t\tx"), None);
        assert_eq!(spaces_per_tab("    x", "\t x"), None);
    }

    #[test]
    fn local_style_wins_over_the_majority() {
        // Tabs at the top, a space-indented block at the bottom: lines landing at the bottom
        // take spaces.
        let mut file = String::from("t {\n");
        for _ in 0..30 {
            file.push_str("\tx\n");
        }
        file.push_str("}\ns {\n  y\n  z\n}\n");
        let doc = Doc::parse(&file);
        assert_eq!(around(&doc, 36, 36), Style::Spaces);
        assert_eq!(around(&doc, 34, 34), Style::Spaces);
        assert_eq!(space_unit(&doc, 34, 34), Some(2));
        assert_eq!(around(&doc, 5, 5), Style::Tabs);
    }

    #[test]
    fn an_unclear_level_refuses() {
        // Only lines at 8 spaces, with the line before at depth 1: one level of 8 (depth 1) or
        // two of 4 (depth 2) both fit there; neither is taken.
        let file = "a {\n\tb\n}\n";
        let doc = Doc::parse(file);
        let mut v = vec!["        c".to_string()];
        let r = restyle(
            &mut v,
            around(&doc, 3, 3),
            ReplyStyle::TabsAsSpaces(None),
            &["        c"],
            1,
            || None,
            || Whole::of(&doc, true),
        );
        assert!(r.is_err(), "{v:?}");
        // No neighbours indented at all: left as written.
        assert_eq!(
            restyled("a\nb\n", 1, ReplyStyle::Unknown, &["\tc"]).unwrap(),
            ["\tc"]
        );
    }

    #[test]
    fn without_evidence_a_style_clash_refuses() {
        let file = "a {\n    b\n}\n";
        let tabbed = ["c {", "\td", "}"];
        for how in [
            ReplyStyle::Unknown,
            ReplyStyle::Mixed,
            ReplyStyle::TabsAsSpaces(None),
            ReplyStyle::Faithful,
        ] {
            assert!(restyled(file, 3, how, &tabbed).is_err(), "{how:?}");
        }
        // In the file's style, nothing to decide.
        let spaced = ["c {", "    d", "}"];
        assert_eq!(
            restyled(file, 3, ReplyStyle::Faithful, &spaced).unwrap(),
            spaced
        );
    }

    #[test]
    fn mixed_neighbourhood_is_left_alone() {
        let file = "a\n\tb\n  c\n\td\n  e\n";
        // Between a line with spaces and one with tabs: unclear.
        assert_eq!(around(&Doc::parse(file), 3, 3), Style::Unknown);
    }

    #[test]
    fn a_settled_file_takes_back_a_reply_written_all_in_the_other_style() {
        // Three lines indented with two spaces, no tab anywhere: a reply that quotes nothing
        // indented and writes every indented line with tabs converted the file's spaces.
        let file = "a {\n  b;\n  c;\n}\n\nd {\n  e;\n}\n";
        let tabbed = ["f {", "\tg;", "\t\th;", "}"];
        assert_eq!(
            restyled(file, 8, ReplyStyle::OwnOnly(true), &tabbed).unwrap(),
            ["f {", "  g;", "    h;", "}"]
        );
        // Too few lines to settle the file's style, a reply mixing its own styles, or a file
        // that has tabs somewhere: refused as before.
        let short = "a {\n  b;\n}\n";
        assert!(restyled(short, 3, ReplyStyle::OwnOnly(true), &tabbed).is_err());
        assert!(restyled(file, 8, ReplyStyle::Unknown, &tabbed).is_err());
        let some_tab = format!("{file}i {{\n\tj;\n}}\n");
        assert!(restyled(&some_tab, 3, ReplyStyle::OwnOnly(true), &tabbed).is_err());
    }

    #[test]
    fn a_faithful_reply_may_indent_as_the_file_does_elsewhere() {
        // A Makefile: tabbed recipes, and conditionals indented with two spaces.
        let file = "all:\n\tcc -o a a.c\n\tstrip a\nifeq ($(X),1)\n  Y=1\nendif\nb:\n\tcc b.c\n";
        let spaced = ["ifeq ($(Z),1)", "  W=1", "endif"];
        assert_eq!(
            restyled(file, 2, ReplyStyle::Faithful, &spaced).unwrap(),
            spaced
        );
        // Four spaces stand nowhere in the file, and an unknown reply shows nothing: refused.
        let wider = ["ifeq ($(Z),1)", "    W=1", "endif"];
        assert!(restyled(file, 2, ReplyStyle::Faithful, &wider).is_err());
        assert!(restyled(file, 2, ReplyStyle::Unknown, &spaced).is_err());
        // A quote the fit shifted is no copy of the file's bytes.
        let doc = Doc::parse(file);
        let lines: Vec<String> = spaced.iter().map(|s| s.to_string()).collect();
        let shifted = Whole::of(&doc, false).reading(&lines, false, Shown::Faithful);
        assert!(matches!(shifted, WholeReading::Unclear));
    }

    #[test]
    fn a_tab_continuing_a_list_item_aligns_under_its_text() {
        // A changelog whose only indented lines continue list items: no level width, but a
        // tab after an added item goes under the item's text.
        let file = "* one\n  goes on\n* two\n  goes on\n* three\n  goes on\n";
        let tabbed = [
            "* four is",
            "\tlonger",
            "\tstill",
            "",
            "10. ten",
            "\tgoes on",
        ];
        assert_eq!(
            restyled(file, 6, ReplyStyle::OwnOnly(true), &tabbed).unwrap(),
            [
                "* four is",
                "  longer",
                "  still",
                "",
                "10. ten",
                "    goes on"
            ]
        );
        // A tab after a line that is no item, or two tabs: no certain place.
        assert!(restyled(file, 6, ReplyStyle::OwnOnly(true), &["text", "\tmore"]).is_err());
        assert!(restyled(file, 6, ReplyStyle::OwnOnly(true), &["* a", "\t\tb"]).is_err());
    }
}
